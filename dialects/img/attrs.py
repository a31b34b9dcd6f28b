"""The `img` dialect's enumerations, as EnumAttributes (printed bare in the op formats,
`#img<border clamp>` in the generic form and in attribute dictionaries).

    img.stencil %x window [3, 3] border mirror : ...
    img.downsample %x factor [2, 2] mode average rounding ceil border clamp : ...
    img.crop %x roi [0, 0, 8, 8] {img.place = #img<place node>} : ...
"""

from __future__ import annotations

from enum import auto

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum


class Border(StrEnum):
    """What a read outside the frame sees: the edge pixel (clamp), 0, or the frame reflected
    without repeating the edge (mirror: OpenCV's BORDER_REFLECT_101)."""

    CLAMP = auto()
    ZERO = auto()
    MIRROR = auto()


class ReduceKind(StrEnum):
    SUM = auto()
    MIN = auto()
    MAX = auto()


class ResampleMode(StrEnum):
    """How a downsample picks a block's value: its top-left pixel, or its rounded mean."""

    NEAREST = auto()
    AVERAGE = auto()


class Rounding(StrEnum):
    """Output size of a downsample whose factor does not divide the frame: floor drops the
    last partial block (OpenCV's INTER_AREA on whole blocks), ceil keeps it and reads the
    missing pixels through a border (Halide's boundary conditions, OpenCV's pyrDown)."""

    FLOOR = auto()
    CEIL = auto()


class Place(StrEnum):
    """Where an op runs, written by img-partition."""

    NODE = auto()
    ACCEL = auto()
    CLOUD = auto()


class Compute(StrEnum):
    """A producer's schedule, written by img-fuse: re-evaluated by its consumers (Halide's
    inline) or computed once per row into a ring of rows (a line buffer)."""

    INLINE = auto()
    LINE_BUFFER = auto()


@irdl_attr_definition
class BorderAttr(EnumAttribute[Border], SpacedOpaqueSyntaxAttribute):
    name = "img.border"


@irdl_attr_definition
class ReduceKindAttr(EnumAttribute[ReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "img.reduce_kind"


@irdl_attr_definition
class ResampleModeAttr(EnumAttribute[ResampleMode], SpacedOpaqueSyntaxAttribute):
    name = "img.resample_mode"


@irdl_attr_definition
class RoundingAttr(EnumAttribute[Rounding], SpacedOpaqueSyntaxAttribute):
    name = "img.rounding"


@irdl_attr_definition
class PlaceAttr(EnumAttribute[Place], SpacedOpaqueSyntaxAttribute):
    name = "img.place"


@irdl_attr_definition
class ComputeAttr(EnumAttribute[Compute], SpacedOpaqueSyntaxAttribute):
    name = "img.compute"


ATTRIBUTES: list[type[Attribute]] = [BorderAttr, ReduceKindAttr, ResampleModeAttr, RoundingAttr, PlaceAttr, ComputeAttr]
