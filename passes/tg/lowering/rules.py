"""Every module of lowering rules, imported once so that its @rule and @anchor functions
register (tg-to-kernel imports this module)."""

from tessel.passes.tg.lowering import conv_stages, scalar, stages  # noqa: F401
from tessel.passes.tg.lowering import elementwise, logic  # noqa: F401  (family A: element-wise)
from tessel.passes.tg.lowering import indexing, resample, scatter  # noqa: F401  (family C: gathers, masks, scatters, resampling)
from tessel.passes.tg.lowering import attention  # noqa: F401  (family D1: attention)
from tessel.passes.tg.lowering import pooling, reductions  # noqa: F401  (family B: reductions, norms, pooling)
from tessel.passes.tg.lowering import detection, quant  # noqa: F401  (family D2: quantization, signal, detection)
