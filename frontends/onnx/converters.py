"""Every ONNX converter module, imported once so that its @converter functions register."""

from tessel.frontends.onnx import ops_math, ops_nn, ops_tensor  # noqa: F401
from tessel.frontends.onnx import ops_activation, ops_logic  # noqa: F401  (family A: element-wise)
from tessel.frontends.onnx import ops_index, ops_resample, ops_shape  # noqa: F401  (family C: shapes, indexing, resampling)
from tessel.frontends.onnx import ops_attention  # noqa: F401  (family D1: attention)
from tessel.frontends.onnx import ops_loss, ops_norm, ops_pool, ops_reduce  # noqa: F401  (family B: reductions, norms, pooling, losses)
from tessel.frontends.onnx import ops_control, ops_detection, ops_quant, ops_signal  # noqa: F401  (family D2: quantization, control flow, signal, detection)
from tessel.frontends.onnx import ops_einsum  # noqa: F401  (family D1: einsum)
from tessel.frontends.onnx import ops_rnn  # noqa: F401  (family D1: recurrent layers)
