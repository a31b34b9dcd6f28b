"""`kernel`: the algorithm of one fused group, TVM's tensor expression as IR (`ops.py`),
and its meaning as numpy (`reference.py`)."""

from .ops import (
    COMBINERS,
    ELEMENT_ATTR,
    GPU_DIMS_ATTR,
    KERNEL,
    KERNEL_ATTR,
    OUTPUT_ATTR,
    SCHEDULE_ATTR,
    STAGE_ATTR,
    Bf16Dot2Op,
    ComputeOp,
    Dot4Op,
    LaunchOp,
    LoadOp,
    YieldOp,
)

__all__ = [
    "COMBINERS",
    "ELEMENT_ATTR",
    "GPU_DIMS_ATTR",
    "KERNEL",
    "KERNEL_ATTR",
    "OUTPUT_ATTR",
    "SCHEDULE_ATTR",
    "STAGE_ATTR",
    "Bf16Dot2Op",
    "ComputeOp",
    "Dot4Op",
    "LaunchOp",
    "LoadOp",
    "YieldOp",
]
