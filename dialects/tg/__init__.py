"""`tg`, the tensor-graph dialect: ONNX-level ops on builtin `tensor<...>` types.

A model is a `func.func` whose arguments and results carry their ONNX names as
`{tg.name = "..."}`; its body is a DAG of `tg` ops. Each op declares its fusion category
(`Fusion` trait) and infers its result types; `reference.py` (numpy kernels) and
`interpret.py` (xDSL interpreter functions) give each its meaning.
"""

from xdsl.ir import Dialect

from . import detection as _detection  # family D2: detection
from . import logic as _logic
from . import math as _math
from . import pool as _pool  # family B: pooling
from . import quant as _quant  # family D2: quantization
from . import reduction as _reduction  # family B: reductions
from .attention import AttentionOp  # family D1: attention
from .base import Fusion, FusionCategory, TgOp, fusion_category, tensor_of
from .blocked import (
    Conv2dNchwcBf16Op,
    Conv2dNchwcOp,
    DensePackedBf16Op,
    DensePackedOp,
    DepthwiseConv2dNchwcOp,
    LayoutTransformOp,
)
from .detection import RoiAlignOp
from .dynamic import CompressOp, NonZeroOp, UniqueOp
from .elementwise import (
    AddOp,
    BitcastOp,
    CastOp,
    ClipOp,
    DivOp,
    ExpOp,
    GeluOp,
    MulOp,
    NegOp,
    ReluOp,
    ShiftRightOp,
    SigmoidOp,
    SqrtOp,
    SubOp,
    TanhOp,
)
from .fused import FusedOp, YieldOp
from .indexing import (
    GatherElementsOp,
    GatherNdOp,
    GatherOp,
    OneHotOp,
    ScatterElementsOp,
    ScatterNdOp,
    TriluOp,
)
from .logic import (
    AndOp,
    BitShiftOp,
    EqualOp,
    GreaterEqualOp,
    GreaterOp,
    IsInfOp,
    IsNanOp,
    LessEqualOp,
    LessOp,
    NotOp,
    OrOp,
    WhereOp,
    XorOp,
)
from .math import (
    AbsOp,
    AcoshOp,
    AcosOp,
    AsinhOp,
    AsinOp,
    AtanhOp,
    AtanOp,
    CeilOp,
    CoshOp,
    CosOp,
    ErfOp,
    Expm1Op,
    FloorOp,
    Log1pOp,
    LogOp,
    MaxOp,
    MinOp,
    ModOp,
    PowOp,
    ReciprocalOp,
    RoundOp,
    SignOp,
    SinhOp,
    SinOp,
    TanOp,
)
from .nn import (
    Conv2dOp,
    Conv3dOp,
    ConvTranspose2dOp,
    ConvTranspose3dOp,
    GemmOp,
    MatmulOp,
)
from .norm import BatchNormOp, LayerNormOp, LogSoftmaxOp, SoftmaxOp
from .pool import (
    AvgPool2dOp,
    AvgPool3dOp,
    GlobalAvgPool2dOp,
    LpPool2dOp,
    LpPool3dOp,
    MaxPool2dOp,
    MaxPool3dOp,
)
from .quant import Conv2dIntegerOp, Conv2dIntegerPackedOp, DequantizeOp, MatmulIntegerOp, QuantizeOp, RequantizeOp
from .reduction import (
    ArgMaxOp,
    ArgMinOp,
    CumProdOp,
    CumSumOp,
    ReduceMaxOp,
    ReduceMeanOp,
    ReduceMinOp,
    ReduceProdOp,
    ReduceSumOp,
    TopKOp,
)
from .resample import Col2ImOp, GridSampleOp
from .tensor import (
    INLINE_LIMIT,
    ConcatOp,
    ConstantOp,
    DepthToSpaceOp,
    ExpandOp,
    FillOp,
    FlattenOp,
    PadOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
    WeightOp,
    constant_op,
    constant_value,
    copied_in_slabs,
    is_compile_time,
    is_constant_like,
    weight_op,
)
from .winograd import Conv2dWinogradOp

OPS: list[type[TgOp]] = [
    WeightOp,
    ConstantOp,
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    NegOp,
    ExpOp,
    SqrtOp,
    ReluOp,
    SigmoidOp,
    TanhOp,
    ClipOp,
    ShiftRightOp,
    GeluOp,
    CastOp,
    BitcastOp,
    *_math.OPS,
    *_logic.OPS,
    MatmulOp,
    GemmOp,
    AttentionOp,
    *_quant.OPS,
    *_detection.OPS,
    Conv2dOp,
    Conv3dOp,
    ConvTranspose2dOp,
    ConvTranspose3dOp,
    *_pool.OPS,
    BatchNormOp,
    LayerNormOp,
    SoftmaxOp,
    LogSoftmaxOp,
    *_reduction.OPS,
    ReshapeOp,
    FlattenOp,
    TransposeOp,
    ConcatOp,
    SliceOp,
    PadOp,
    DepthToSpaceOp,
    ExpandOp,
    FillOp,
    GatherOp,
    GatherElementsOp,
    GatherNdOp,
    ScatterElementsOp,
    ScatterNdOp,
    TriluOp,
    OneHotOp,
    GridSampleOp,
    Col2ImOp,
    NonZeroOp,
    CompressOp,
    UniqueOp,
    LayoutTransformOp,
    Conv2dNchwcOp,
    Conv2dNchwcBf16Op,
    Conv2dWinogradOp,
    DepthwiseConv2dNchwcOp,
    DensePackedBf16Op,
    DensePackedOp,
]

# Structure, not computation: the result of `tg-fuse`.
STRUCTURE = [FusedOp, YieldOp]

TG = Dialect("tg", [*OPS, *STRUCTURE], [])

# The attribute names a tg model uses on func.func arguments/results and on the module.
NAME_ATTR = "tg.name"
WEIGHTS_ATTR = "tg.weights"

__all__ = [
    "TG",
    "OPS",
    "FusedOp",
    "YieldOp",
    "NAME_ATTR",
    "WEIGHTS_ATTR",
    "Fusion",
    "FusionCategory",
    "TgOp",
    "fusion_category",
    "copied_in_slabs",
    "constant_value",
    "constant_op",
    "weight_op",
    "is_compile_time",
    "is_constant_like",
    "tensor_of",
    "INLINE_LIMIT",
    *[op.__name__ for op in OPS],
]
