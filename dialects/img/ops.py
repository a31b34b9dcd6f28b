"""The `img` operations: point-wise and stencil regions, reductions, resampling, the
data-reduction stages a camera pipeline is built around, and the link to the cloud.

Every op works on frames or, identically per frame, on streams; `img.source` starts a stream
at a frame rate and `img.gate` thins it. Region ops carry their computation as a body over
scalars in the signless element type, ending in `img.yield`:

    %b = img.stencil %x {window = array<i64: 3, 3>, border = "clamp"} : (!img.frame<64x64x1, ui8>) -> !img.frame<64x64x1, ui8> {
    ^bb0(%p0: i8, %p1: i8, ..., %p8: i8):   // the window in row-major order, centred
      ...
      img.yield %r : i8
    }

Any op may carry `img.place = "node" | "accel" | "cloud"`, written by `img-partition`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

from .types import StreamType, _ImageType, element_name, like, scalar_type

PLACE_ATTR = "img.place"
PLACES = ("node", "accel", "cloud")
BORDERS = ("clamp", "zero", "mirror")


def _image(v: SSAValue | Attribute, what: str) -> _ImageType:
    t = v.type if isinstance(v, SSAValue) else v
    if not isinstance(t, _ImageType):
        raise VerifyException(f"{what} must be an !img.frame or !img.stream, got {t}")
    return t


def _same_kind(types: Sequence[_ImageType], what: str) -> None:
    if len({type(t) for t in types}) > 1:
        raise VerifyException(f"{what} mixes frames and streams")


def _ints(attr: DenseArrayBase | None, n: int, what: str) -> tuple[int, ...]:
    values = tuple(attr.get_values()) if attr is not None else ()  # type: ignore[union-attr]
    if len(values) != n:
        raise VerifyException(f"{what} takes {n} values, got {list(values)}")
    return values  # type: ignore[return-value]


def _expect(op: Operation, want: _ImageType) -> None:
    got = op.results[0].type
    if got != want:
        raise VerifyException(f"result type should be {want}, got {got}")


class ImgOp(IRDLOperation):
    """Base: checks the placement attribute every op may carry."""

    irdl_options = (ParsePropInAttrDict(),)

    def verify_placement(self) -> None:
        place = self.attributes.get(PLACE_ATTR)
        if place is not None and (not isinstance(place, StringAttr) or place.data not in PLACES):
            raise VerifyException(f"{PLACE_ATTR} must be one of {', '.join(PLACES)}, got {place}")


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "img.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "$values attr-dict `:` type($values)"


class RegionOp(ImgOp):
    """map and stencil: a body over scalars that yields one scalar per result pixel."""

    body = region_def("single_block")
    traits = traits_def(Pure(), RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def expected_args(self) -> list[Attribute]:
        raise NotImplementedError

    def verify_body(self) -> None:
        self.verify_placement()
        block = self.body.block
        want = self.expected_args()
        got = [a.type for a in block.args]
        if got != want:
            raise VerifyException(f"body takes {len(want)} arguments of types {[str(t) for t in want]}, got {[str(t) for t in got]}")
        term = block.last_op
        out = scalar_type(_image(self.results[0], "result").element)
        if not isinstance(term, YieldOp) or [v.type for v in term.values] != [out]:
            raise VerifyException(f"body must end with img.yield of one {out}")


@irdl_op_definition
class MapOp(RegionOp):
    """Point-wise: the body sees one pixel (per channel) of every input."""

    name = "img.map"
    inputs = var_operand_def()
    result = result_def()
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $result) $body"

    def expected_args(self) -> list[Attribute]:
        return [scalar_type(_image(v, "input").element) for v in self.inputs]

    def verify_(self) -> None:
        types = [_image(v, f"input #{i}") for i, v in enumerate(self.inputs)]
        result = _image(self.result, "result")
        if not self.inputs:
            raise VerifyException("needs at least one input")
        if len({t.shape for t in [*types, result]}) != 1:
            raise VerifyException(f"inputs and result must have one shape, got {[t.shape for t in [*types, result]]}")
        # frames combine with streams (a background frame against every frame of a stream)
        if isinstance(result, StreamType) != any(isinstance(t, StreamType) for t in types):
            raise VerifyException("the result is a stream exactly when an input is")
        self.verify_body()


@irdl_op_definition
class StencilOp(RegionOp):
    """A window of kh x kw pixels around each output pixel (row-major body arguments; the
    anchor is the window's centre, (kh-1)/2 rows up and (kw-1)/2 columns left); pixels
    outside the frame follow `border`: clamp (repeat the edge), zero, or mirror."""

    name = "img.stencil"
    input = operand_def()
    result = result_def()
    window = prop_def(DenseArrayBase)
    border = prop_def(StringAttr)
    assembly_format = "$input attr-dict `:` functional-type($input, $result) $body"

    @property
    def size(self) -> tuple[int, int]:
        return _ints(self.window, 2, "window")  # type: ignore[return-value]

    def expected_args(self) -> list[Attribute]:
        kh, kw = self.size
        return [scalar_type(_image(self.input, "input").element)] * (kh * kw)

    def verify_(self) -> None:
        x, y = _image(self.input, "input"), _image(self.result, "result")
        _same_kind([x, y], "img.stencil")
        kh, kw = self.size
        if kh < 1 or kw < 1 or kh > 63 or kw > 63:
            raise VerifyException(f"window must be 1..63 on each side, got {kh}x{kw}")
        if self.border.data not in BORDERS:
            raise VerifyException(f"border must be one of {', '.join(BORDERS)}, got {self.border.data}")
        if x.shape != y.shape:
            raise VerifyException(f"result shape must equal the input's {x.shape}, got {y.shape}")
        self.verify_body()


class UnaryImgOp(ImgOp):
    """One image in, one out, the result type given; subclasses check it."""

    input = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def infer(self, x: _ImageType) -> _ImageType:
        raise NotImplementedError

    def verify_(self) -> None:
        self.verify_placement()
        x = _image(self.input, "input")
        _image(self.result, "result")
        _expect(self, self.infer(x))


@irdl_op_definition
class ExtractOp(UnaryImgOp):
    """One channel of a multi-channel image (per-channel work: white balance, luma)."""

    name = "img.extract"
    channel = prop_def(IntegerAttr)

    def infer(self, x: _ImageType) -> _ImageType:
        c = self.channel.value.data
        if not 0 <= c < x.channels.data:
            raise VerifyException(f"channel {c} is not one of the input's {x.channels.data}")
        return like(x, c=1) if x.channels.data != 1 else x


@irdl_op_definition
class MergeOp(ImgOp):
    """Single-channel images of one shape and type stacked into channels (RGB from planes)."""

    name = "img.merge"
    inputs = var_operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $result)"

    def verify_(self) -> None:
        self.verify_placement()
        types = [_image(v, f"input #{i}") for i, v in enumerate(self.inputs)]
        if not types or any(t != types[0] for t in types) or types[0].channels.data != 1:
            raise VerifyException("merges single-channel images of one type")
        _expect(self, like(types[0], c=len(types)))


@irdl_op_definition
class ReduceOp(UnaryImgOp):
    """Over the whole frame, per channel: sum (widened to i32 or f32), min, max; 1x1xC."""

    name = "img.reduce"
    kind = prop_def(StringAttr)
    KINDS: ClassVar[tuple[str, ...]] = ("sum", "min", "max")

    def infer(self, x: _ImageType) -> _ImageType:
        if self.kind.data not in self.KINDS:
            raise VerifyException(f"kind must be one of {', '.join(self.KINDS)}, got {self.kind.data}")
        element = x.element if self.kind.data != "sum" else ("f32" if x.element_name == "f32" else "i32")
        return like(x, 1, 1, element=element)


@irdl_op_definition
class ScanOp(UnaryImgOp):
    """The integral image: out[y, x] = sum of in[0..y, 0..x] (i32, or f32 for f32 input)."""

    name = "img.scan"

    def infer(self, x: _ImageType) -> _ImageType:
        return like(x, element="f32" if x.element_name == "f32" else "i32")


@irdl_op_definition
class DownsampleOp(UnaryImgOp):
    """Keep every fy-th row and fx-th column (`nearest`) or average each fy x fx block."""

    name = "img.downsample"
    factor = prop_def(DenseArrayBase)
    mode = prop_def(StringAttr)

    def infer(self, x: _ImageType) -> _ImageType:
        fy, fx = _ints(self.factor, 2, "factor")
        if fy < 1 or fx < 1 or x.height.data % fy or x.width.data % fx:
            raise VerifyException(f"factor {fy}x{fx} must divide the {x.height.data}x{x.width.data} frame")
        if self.mode.data not in ("nearest", "average"):
            raise VerifyException(f"mode must be nearest or average, got {self.mode.data}")
        return like(x, x.height.data // fy, x.width.data // fx)


@irdl_op_definition
class UpsampleOp(UnaryImgOp):
    """Repeat every pixel fy x fx times."""

    name = "img.upsample"
    factor = prop_def(DenseArrayBase)

    def infer(self, x: _ImageType) -> _ImageType:
        fy, fx = _ints(self.factor, 2, "factor")
        if fy < 1 or fx < 1:
            raise VerifyException(f"factor must be positive, got {fy}x{fx}")
        return like(x, x.height.data * fy, x.width.data * fx)


@irdl_op_definition
class CropOp(UnaryImgOp):
    """A static region of interest: rows y..y+h, columns x..x+w."""

    name = "img.crop"
    roi = prop_def(DenseArrayBase)

    def infer(self, x: _ImageType) -> _ImageType:
        y, x0, h, w = _ints(self.roi, 4, "roi (y, x, height, width)")
        if y < 0 or x0 < 0 or h < 1 or w < 1 or y + h > x.height.data or x0 + w > x.width.data:
            raise VerifyException(f"roi {[y, x0, h, w]} is not inside the {x.height.data}x{x.width.data} frame")
        return like(x, h, w)


@irdl_op_definition
class TransmitOp(UnaryImgOp):
    """Send the data over a link (node to cloud): the identity on values; the partitioner
    charges bits x energy per bit and checks bits x frame rate against the bandwidth."""

    name = "img.transmit"
    link = prop_def(StringAttr)
    gbps = prop_def(FloatAttr)
    nj_per_bit = prop_def(FloatAttr)

    def infer(self, x: _ImageType) -> _ImageType:
        if self.gbps.value.data <= 0 or self.nj_per_bit.value.data < 0:
            raise VerifyException("gbps must be positive and nj_per_bit non-negative")
        return x


@irdl_op_definition
class EncodeOp(UnaryImgOp):
    """A video encoder as a black box: the identity on values (Tessel does not compress),
    `ratio` x the input's bits for the cost model, `ops_per_pixel` for its compute."""

    name = "img.encode"
    ratio = prop_def(FloatAttr)
    ops_per_pixel = prop_def(FloatAttr)

    def infer(self, x: _ImageType) -> _ImageType:
        if not 0 < self.ratio.value.data <= 1:
            raise VerifyException(f"ratio must be in (0, 1], got {self.ratio.value.data}")
        return x


@irdl_op_definition
class SinkOp(ImgOp):
    name = "img.sink"
    input = operand_def()
    assembly_format = "$input attr-dict `:` type($input)"

    def verify_(self) -> None:
        self.verify_placement()
        _image(self.input, "input")


@irdl_op_definition
class SourceOp(ImgOp):
    """A camera: a stream of frames at `fps`; `count` identical cameras share the pipeline
    (a 16-camera rig), which multiplies every rate downstream."""

    name = "img.source"
    result = result_def(StreamType)
    fps = prop_def(FloatAttr)
    camera = opt_prop_def(StringAttr)
    count = opt_prop_def(IntegerAttr)
    assembly_format = "attr-dict `:` type($result)"

    @property
    def cameras(self) -> int:
        return self.count.value.data if self.count is not None else 1

    def verify_(self) -> None:
        self.verify_placement()
        if self.fps.value.data <= 0:
            raise VerifyException(f"fps must be positive, got {self.fps.value.data}")
        if self.cameras < 1:
            raise VerifyException(f"count must be positive, got {self.cameras}")


@irdl_op_definition
class DenseOp(ImgOp):
    """A fully connected layer over the whole frame: out[0, 0, k] = sum_i flat(in)[i] * w[i, k, 0]
    in int32 (the face-authentication network's layers): in HxWxC of ui8/i8, weights Nx Kx1 i8
    with N = H*W*C, result 1x1xK i32. Two of them with an `img.map` ReLU between make an MLP."""

    name = "img.dense"
    input = operand_def()
    weights = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$input `,` $weights attr-dict `:` type($input) `,` type($weights) `->` type($result)"

    def verify_(self) -> None:
        self.verify_placement()
        x, w = _image(self.input, "input"), _image(self.weights, "weights")
        n = x.pixels * x.channels.data
        if element_name(w.element) != "i8" or w.height.data != n or w.channels.data != 1:
            raise VerifyException(f"weights must be {n}xKx1 i8 for a {x.shape} input, got {w}")
        if x.element_name not in ("ui8", "i8", "i16", "i32"):
            raise VerifyException(f"input must be an integer image, got {x.element_name}")
        _expect(self, like(x, 1, 1, w.width.data, "i32"))

    @property
    def macs(self) -> int:
        w = _image(self.weights, "weights")
        return w.height.data * w.width.data


@irdl_op_definition
class GateOp(ImgOp):
    """Drop the frames whose predicate (a 1x1x1 image, non-zero = keep) is false. The
    expected share kept, `pass_rate`, is what the rate analysis and the partitioner use."""

    name = "img.gate"
    input = operand_def()
    predicate = operand_def()
    result = result_def()
    pass_rate = prop_def(FloatAttr)
    assembly_format = "$input `,` $predicate attr-dict `:` type($input) `,` type($predicate) `->` type($result)"

    def verify_(self) -> None:
        self.verify_placement()
        x, p = _image(self.input, "input"), _image(self.predicate, "predicate")
        if not isinstance(x, StreamType):
            raise VerifyException("gates a stream (a single frame has no rate to thin)")
        if p.shape != (1, 1, 1):
            raise VerifyException(f"predicate must be 1x1x1, got {p.shape}")
        if not 0 < self.pass_rate.value.data <= 1:
            raise VerifyException(f"pass_rate must be in (0, 1], got {self.pass_rate.value.data}")
        _expect(self, x)


@irdl_op_definition
class RemapOp(ImgOp):
    """A LUT warp: out[y, x] = in[lut[y, x, 0], lut[y, x, 1]] (clamped to the frame), with the
    LUT's largest displacement declared so the data a tile needs is bounded."""

    name = "img.remap"
    input = operand_def()
    lut = operand_def()
    result = result_def()
    max_displacement = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $lut attr-dict `:` type($input) `,` type($lut) `->` type($result)"

    def verify_(self) -> None:
        self.verify_placement()
        x, lut = _image(self.input, "input"), _image(self.lut, "lut")
        if lut.channels.data != 2 or element_name(lut.element) not in ("i16", "i32"):
            raise VerifyException(f"lut must have 2 channels of i16 or i32 (row, column), got {lut}")
        if self.max_displacement.value.data < 0:
            raise VerifyException("max_displacement must be non-negative")
        _expect(self, like(x, lut.height.data, lut.width.data))


OPS: list[type[IRDLOperation]] = [
    MapOp, StencilOp, YieldOp, ReduceOp, ScanOp, DownsampleOp, UpsampleOp, CropOp, GateOp, RemapOp,
    TransmitOp, EncodeOp, SourceOp, SinkOp, DenseOp, ExtractOp, MergeOp,
]  # fmt: skip
