"""`img`: camera and image pipelines (frames, streams, stencils, data reduction, links)."""

from xdsl.ir import Dialect

from .attrs import (
    ATTRIBUTES,
    Border,
    BorderAttr,
    Compute,
    ComputeAttr,
    Place,
    PlaceAttr,
    ReduceKind,
    ReduceKindAttr,
    ResampleMode,
    ResampleModeAttr,
    Rounding,
    RoundingAttr,
)
from .ops import (
    OPS,
    PLACE_ATTR,
    CropOp,
    DenseOp,
    DownsampleOp,
    EncodeOp,
    ExtractOp,
    GateOp,
    ImgOp,
    LutOp,
    MapOp,
    MergeOp,
    ReduceOp,
    RemapOp,
    RowStage,
    ScanOp,
    SinkOp,
    SourceOp,
    StencilOp,
    TransmitOp,
    UpsampleOp,
    ValueAlias,
    WholeFrame,
    YieldOp,
)
from .types import FrameType, ImageType, StreamType, frame, like

IMG = Dialect("img", OPS, [FrameType, StreamType, *ATTRIBUTES])

__all__ = [
    "IMG", "OPS", "PLACE_ATTR", "Border", "BorderAttr", "Compute", "ComputeAttr", "Place", "PlaceAttr",
    "ReduceKind", "ReduceKindAttr", "ResampleMode", "ResampleModeAttr", "Rounding", "RoundingAttr",
    "CropOp", "DenseOp", "DownsampleOp", "EncodeOp", "ExtractOp", "GateOp", "ImgOp", "LutOp", "MapOp", "MergeOp",
    "ReduceOp", "RemapOp", "RowStage", "ScanOp", "SinkOp", "SourceOp", "StencilOp", "TransmitOp", "UpsampleOp",
    "ValueAlias", "WholeFrame", "YieldOp", "FrameType", "ImageType", "StreamType", "frame", "like",
]  # fmt: skip
