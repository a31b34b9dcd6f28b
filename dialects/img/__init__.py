"""`img`: camera and image pipelines (frames, streams, stencils, data reduction, links)."""

from xdsl.ir import Dialect

from .ops import (
    OPS,
    PLACE_ATTR,
    PLACES,
    CropOp,
    DenseOp,
    DownsampleOp,
    EncodeOp,
    ExtractOp,
    GateOp,
    MapOp,
    MergeOp,
    ReduceOp,
    RemapOp,
    ScanOp,
    SinkOp,
    SourceOp,
    StencilOp,
    TransmitOp,
    UpsampleOp,
    YieldOp,
)
from .types import FrameType, StreamType, frame, like

IMG = Dialect("img", OPS, [FrameType, StreamType])

__all__ = [
    "IMG", "OPS", "PLACE_ATTR", "PLACES", "CropOp", "DenseOp", "DownsampleOp", "EncodeOp", "ExtractOp", "GateOp", "MapOp", "MergeOp", "ReduceOp",
    "RemapOp", "ScanOp", "SinkOp", "SourceOp", "StencilOp", "TransmitOp", "UpsampleOp", "YieldOp",
    "FrameType", "StreamType", "frame", "like",
]  # fmt: skip
