"""Every ONNX converter module, imported once so that its @converter functions register."""

from tessel.frontends.onnx import (  # noqa: F401  # noqa: F401  (family A: element-wise)  # noqa: F401  (family C: shapes, indexing, resampling)  # noqa: F401  (family B: reductions, norms, pooling, losses)  # noqa: F401  (family D2: quantization, control flow, signal, detection)
    ops_activation,
    ops_attention,  # noqa: F401  (family D1: attention)
    ops_control,
    ops_detection,
    ops_einsum,  # noqa: F401  (family D1: einsum)
    ops_index,
    ops_linear_attention,  # noqa: F401  (recurrent-state layers: LinearAttention, CausalConvWithState)
    ops_logic,
    ops_loss,
    ops_math,
    ops_nn,
    ops_norm,
    ops_pool,
    ops_quant,
    ops_reduce,
    ops_resample,
    ops_rnn,  # noqa: F401  (family D1: recurrent layers)
    ops_shape,
    ops_signal,
    ops_tensor,
    ops_transformer,  # noqa: F401  (RotaryEmbedding, SwiGLU)
)
