"""Every module of lowering rules, imported once so that its @rule and @anchor functions
register (tg-to-kernel imports this module)."""

from tessel.passes.tg.lowering import (  # noqa: F401  # noqa: F401  (family A: element-wise)  # noqa: F401  (family C: gathers, masks, scatters, resampling)  # noqa: F401  (family B: reductions, norms, pooling)  # noqa: F401  (family D2: quantization, signal, detection)
    attention,  # noqa: F401  (family D1: attention)
    conv_stages,
    detection,
    elementwise,
    indexing,
    logic,
    pooling,
    quant,
    reductions,
    resample,
    scalar,
    scatter,
    stages,
)
