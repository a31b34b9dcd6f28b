"""Every ONNX converter module, imported once so that its @converter functions register."""

from tessel.frontends.onnx import (  # noqa: F401  (imported for their registrations)
    ops_activation,  # family A: element-wise
    ops_attention,  # family D1
    ops_control,  # family D2: If, Loop, Scan
    ops_detection,  # family D2
    ops_einsum,  # family D1
    ops_index,  # family C: indexing
    ops_linear_attention,  # LinearAttention, CausalConvWithState
    ops_logic,  # family A
    ops_loss,  # family B
    ops_math,
    ops_nn,
    ops_norm,  # family B
    ops_pool,  # family B
    ops_quant,  # family D2
    ops_reduce,  # family B
    ops_resample,  # family C
    ops_rnn,  # family D1: recurrent layers
    ops_shape,  # family C: shapes
    ops_signal,  # family D2
    ops_tensor,
    ops_transformer,  # RotaryEmbedding, SwiGLU
)
