"""Every module of lowering rules, imported once so that its @rule and @anchor functions
register (tg-to-kernel imports this module)."""

from tessel.passes.tg.lowering import (  # noqa: F401  (imported for their registrations)
    attention,  # family D1
    bf16,  # tg.dense_packed_bf16 (--precision bf16)
    casts,
    conv_stages,
    detection,  # family D2: detection
    elementwise,  # family A: element-wise
    indexing,  # family C: gathers, masks, resampling
    logic,  # family A
    pooling,  # family B: pooling
    quant,  # family D2: quantization
    reductions,  # family B: reductions, norms
    resample,  # family C
    scalar,
    scatter,  # family C: scatters
    stages,
    winograd,  # tg.conv2d_winograd (tg-winograd)
)
