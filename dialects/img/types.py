"""`!img.frame` and `!img.stream`: one image, or a sequence of images arriving at a rate.

    !img.frame<1080x1920x3xui8>       height x width x channels x element type
    !img.stream<144x176x1xui8>        frames of that shape, one after another

Element types are Tessel's (ui8/ui16 unsigned, i8..i32 signed, f32). Region bodies
(`img.map`, `img.stencil`) see the signless counterpart (`i8` for `ui8`), as MLIR's
arithmetic does: signedness lives in the operations (`arith.extui`, `arith.divsi`). Frame
rates are not part of the type: a source declares one and the rate analysis derives the rest.
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, IntAttr, IntegerType, Signedness, f32
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

ELEMENTS = ("ui8", "ui16", "i8", "i16", "i32", "f32")
MAX_PIXELS = 1 << 28  # 268 M pixels per frame: a 16K x 16K frame, refused beyond


class _ImageType(ParametrizedAttribute, TypeAttribute):
    height: IntAttr
    width: IntAttr
    channels: IntAttr
    element: Attribute

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.height.data, self.width.data, self.channels.data)

    @property
    def pixels(self) -> int:
        return self.height.data * self.width.data

    @property
    def element_name(self) -> str:
        return element_name(self.element)

    @property
    def bits(self) -> int:
        """Bits per frame."""
        return self.pixels * self.channels.data * element_bits(self.element)

    def verify(self) -> None:
        h, w, c = self.shape
        if h < 1 or w < 1 or c < 1:
            raise VerifyException(f"!{self.name} dimensions must be positive, got {h}x{w}x{c}")
        if h * w > MAX_PIXELS:
            raise VerifyException(
                f"!{self.name} of {h}x{w} has {h * w} pixels, more than the {MAX_PIXELS} a frame may have"
            )
        if element_name(self.element) not in ELEMENTS:
            raise VerifyException(f"!{self.name} element must be one of {', '.join(ELEMENTS)}, got {self.element}")

    def print_parameters(self, printer: Printer) -> None:
        h, w, c = self.shape
        printer.print_string(f"<{h}x{w}x{c}x")
        printer.print_attribute(self.element)
        printer.print_string(">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr, IntAttr, Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            dims, element = parser.parse_ranked_shape()
            if len(dims) != 3 or any(d < 0 for d in dims):
                parser.raise_error(
                    f"!{cls.name} takes height x width x channels x element, got {len(dims)} dimensions",
                    pos,
                    parser.pos,
                )
        return IntAttr(dims[0]), IntAttr(dims[1]), IntAttr(dims[2]), element


@irdl_attr_definition
class FrameType(_ImageType):
    name = "img.frame"
    height: IntAttr = param_def()
    width: IntAttr = param_def()
    channels: IntAttr = param_def()
    element: Attribute = param_def()


@irdl_attr_definition
class StreamType(_ImageType):
    name = "img.stream"
    height: IntAttr = param_def()
    width: IntAttr = param_def()
    channels: IntAttr = param_def()
    element: Attribute = param_def()


ImageType = _ImageType  # either kind: what every image op's operands and results are


def frame(h: int, w: int, c: int, element: str | Attribute, stream: bool = False) -> ImageType:
    et = element_type(element) if isinstance(element, str) else element
    cls: type[ImageType] = StreamType if stream else FrameType
    return cls(IntAttr(h), IntAttr(w), IntAttr(c), et)


def like(t: ImageType, h: int | None = None, w: int | None = None, c: int | None = None,
         element: str | Attribute | None = None) -> ImageType:  # fmt: skip
    """The same kind (frame or stream) with some of its parameters replaced."""
    return frame(h or t.height.data, w or t.width.data, c or t.channels.data,
                 element if element is not None else t.element, isinstance(t, StreamType))  # fmt: skip


def element_type(name: str) -> Attribute:
    if name == "f32":
        return f32
    if name not in ELEMENTS:
        raise VerifyException(f"unknown image element type {name} (known: {', '.join(ELEMENTS)})")
    width = int(name.lstrip("ui"))
    return IntegerType(width, Signedness.UNSIGNED if name.startswith("u") else Signedness.SIGNLESS)


def element_name(t: Attribute) -> str:
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, IntegerType):
        return ("ui" if t.signedness.data == Signedness.UNSIGNED else "i") + str(t.width.data)
    return str(t)


def element_bits(t: Attribute) -> int:
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, IntegerType):
        return t.width.data
    raise VerifyException(f"{t} is not an image element type")


def scalar_type(t: Attribute) -> Attribute:
    """The signless type region bodies compute in."""
    if isinstance(t, IntegerType):
        return IntegerType(t.width.data)
    return t


def numpy_dtype(t: Attribute) -> str:
    return {"ui8": "uint8", "ui16": "uint16", "i8": "int8", "i16": "int16", "i32": "int32", "f32": "float32"}[
        element_name(t)
    ]
