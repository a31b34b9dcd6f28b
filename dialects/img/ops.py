"""The `img` operations: point-wise and stencil regions, table lookups, reductions,
resampling, the data-reduction stages a camera pipeline is built around, and the link to
the cloud.

Every op works on frames or, identically per frame, on streams (operands and results are
constrained to `!img.frame` / `!img.stream`); `img.source` starts a stream at a frame rate
and `img.gate` thins it. Region ops carry their computation as a body over scalars in the
signless element type, ending in `img.yield`; the verifier checks that every body op is one
the reference and the CPU lowering know (`scalar.check_body`):

    %b = img.stencil %x window [3, 3] border clamp : (!img.frame<64x64x1xui8>) -> !img.frame<64x64x1xui8> {
    ^bb0(%p0: i8, %p1: i8, ..., %p8: i8):   // the window in row-major order, centred
      ...
      img.yield %r : i8
    }

Each op declares how the CPU target runs it as a trait: `RowStage` (streamed row by row in
fused, line-buffered pipelines), `WholeFrame` (reads or writes whole frames: a kernel
between row pipelines) or `ValueAlias` (the identity on values: gate, encode, transmit).
Any op may carry `img.place = #img<place node|accel|cloud>`, written by `img-partition`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsTerminator, OpTrait, Pure, RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

from tessel.ir.diagnostics import TesselError

from .attrs import (
    Border,
    BorderAttr,
    PlaceAttr,
    ReduceKind,
    ReduceKindAttr,
    ResampleMode,
    ResampleModeAttr,
    Rounding,
    RoundingAttr,
)
from .scalar import check_body
from .types import ELEMENTS, FrameType, ImageType, StreamType, element_name, like, scalar_type

PLACE_ATTR = "img.place"
Image = base(FrameType) | base(StreamType)  # the operand and result constraint of every image op


class RowStage(OpTrait):
    """Computed row by row: fused and line-buffered into the CPU target's row pipelines."""


class WholeFrame(OpTrait):
    """Reads (or scatters over) whole frames: a native kernel between row pipelines."""


class ValueAlias(OpTrait):
    """The identity on values (its result is its first operand's frames)."""


def image(v: SSAValue | Attribute) -> ImageType:
    """The image type of a value the declarations already constrain."""
    t = v.type if isinstance(v, SSAValue) else v
    if not isinstance(t, ImageType):
        raise VerifyException(f"expected an !img.frame or !img.stream, got {t}")
    return t


def _ints(attr: DenseArrayBase[I64], n: int, what: str) -> tuple[int, ...]:
    values = tuple(int(v) for v in attr.get_values())
    if len(values) != n:
        raise VerifyException(f"{what} takes {n} values, got {list(values)}")
    return values


def _expect(op: Operation, want: ImageType) -> None:
    got = op.results[0].type
    if got != want:
        raise VerifyException(f"result type should be {want}, got {got}")


def _same_kind(types: Sequence[ImageType], what: str) -> None:
    if len({type(t) for t in types}) > 1:
        raise VerifyException(f"{what} mixes frames and streams")


class ImgOp(IRDLOperation):
    """Base: checks the placement attribute every op may carry."""

    irdl_options = (ParsePropInAttrDict(),)

    def verify_placement(self) -> None:
        place = self.attributes.get(PLACE_ATTR)
        if place is not None and not isinstance(place, PlaceAttr):
            raise VerifyException(f"{PLACE_ATTR} must be #img<place node|accel|cloud>, got {place}")


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "img.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "$values attr-dict `:` type($values)"


class RegionOp(ImgOp):
    """map and stencil: a body over scalars that yields one scalar per result pixel."""

    body = region_def("single_block")
    traits = traits_def(Pure(), RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp), RowStage())

    def expected_args(self) -> list[Attribute]:
        raise NotImplementedError

    def verify_body(self) -> None:
        self.verify_placement()
        block = self.body.block
        want = self.expected_args()
        got = [a.type for a in block.args]
        if got != want:
            raise VerifyException(
                f"body takes {len(want)} arguments of types {[str(t) for t in want]}, got {[str(t) for t in got]}"
            )
        term = block.last_op
        out = scalar_type(image(self.results[0]).element)
        if not isinstance(term, YieldOp) or [v.type for v in term.values] != [out]:
            raise VerifyException(f"body must end with img.yield of one {out}")
        try:
            check_body(block)
        except TesselError as err:
            raise VerifyException(f"body: {err.message}") from None


@irdl_op_definition
class MapOp(RegionOp):
    """Point-wise: the body sees one pixel (per channel) of every input."""

    name = "img.map"
    inputs = var_operand_def(Image)
    result = result_def(Image)
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $result) $body"

    def expected_args(self) -> list[Attribute]:
        return [scalar_type(image(v).element) for v in self.inputs]

    def verify_(self) -> None:
        types = [image(v) for v in self.inputs]
        result = image(self.result)
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
    outside the frame follow `border`."""

    name = "img.stencil"
    input = operand_def(Image)
    result = result_def(Image)
    window = prop_def(DenseArrayBase[I64])
    border = prop_def(BorderAttr)
    assembly_format = "$input `window` $window `border` $border attr-dict `:` functional-type($input, $result) $body"

    @property
    def size(self) -> tuple[int, int]:
        kh, kw = _ints(self.window, 2, "window")
        return kh, kw

    @property
    def border_mode(self) -> Border:
        return self.border.data

    def expected_args(self) -> list[Attribute]:
        kh, kw = self.size
        return [scalar_type(image(self.input).element)] * (kh * kw)

    def verify_(self) -> None:
        x, y = image(self.input), image(self.result)
        _same_kind([x, y], "img.stencil")
        kh, kw = self.size
        if kh < 1 or kw < 1 or kh > 63 or kw > 63:
            raise VerifyException(f"window must be 1..63 on each side, got {kh}x{kw}")
        if x.shape != y.shape:
            raise VerifyException(f"result shape must equal the input's {x.shape}, got {y.shape}")
        self.verify_body()


class UnaryImgOp(ImgOp):
    """One image in, one out, the result type given; subclasses infer it."""

    input = operand_def(Image)
    result = result_def(Image)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def infer(self, x: ImageType) -> ImageType:
        raise NotImplementedError

    def verify_(self) -> None:
        self.verify_placement()
        _expect(self, self.infer(image(self.input)))


@irdl_op_definition
class LutOp(UnaryImgOp):
    """A lookup table: out = table[in] per pixel and channel, for ui8 or ui16 images; the
    table's element type (any image element) is the result's. Indices past the table's
    last entry read the last entry (a 10-bit raw curve is a 1024-entry table over ui16)."""

    name = "img.lut"
    table = prop_def(DenseIntOrFPElementsAttr)
    traits = traits_def(Pure(), RowStage())
    assembly_format = "$input `table` `(` $table `)` attr-dict `:` type($input) `->` type($result)"

    @property
    def entries(self) -> int:
        return len(self.table)

    def values(self) -> list[int] | list[float]:
        return list(self.table.get_values())

    def infer(self, x: ImageType) -> ImageType:
        if x.element_name not in ("ui8", "ui16"):
            raise VerifyException(f"indexes with ui8 or ui16 pixels, got {x.element_name}")
        shape = self.table.get_shape()
        if shape is None or len(shape) != 1:
            raise VerifyException(f"table must be a 1-d tensor, got {self.table.type}")
        bits = 8 if x.element_name == "ui8" else 16
        if not 1 <= shape[0] <= 1 << bits:
            raise VerifyException(f"table has {shape[0]} entries; a {x.element_name} index reads 1..{1 << bits}")
        element = self.table.get_element_type()
        if element_name(element) not in ELEMENTS:
            raise VerifyException(f"table elements must be one of {', '.join(ELEMENTS)}, got {element}")
        return like(x, element=element)


@irdl_op_definition
class ExtractOp(UnaryImgOp):
    """One channel of a multi-channel image (per-channel work: white balance, luma)."""

    name = "img.extract"
    channel = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure(), RowStage())
    assembly_format = "$input `channel` $channel attr-dict `:` type($input) `->` type($result)"

    def infer(self, x: ImageType) -> ImageType:
        c = self.channel.value.data
        if not 0 <= c < x.channels.data:
            raise VerifyException(f"channel {c} is not one of the input's {x.channels.data}")
        return like(x, c=1) if x.channels.data != 1 else x


@irdl_op_definition
class MergeOp(ImgOp):
    """Single-channel images of one shape and type stacked into channels (RGB from planes)."""

    name = "img.merge"
    inputs = var_operand_def(Image)
    result = result_def(Image)
    traits = traits_def(Pure(), RowStage())
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $result)"

    def verify_(self) -> None:
        self.verify_placement()
        types = [image(v) for v in self.inputs]
        if not types or any(t != types[0] for t in types) or types[0].channels.data != 1:
            raise VerifyException("merges single-channel images of one type")
        _expect(self, like(types[0], c=len(types)))


@irdl_op_definition
class ReduceOp(UnaryImgOp):
    """Over the whole frame, per channel: sum (widened to i32 or f32), min, max; 1x1xC."""

    name = "img.reduce"
    kind = prop_def(ReduceKindAttr)
    traits = traits_def(Pure(), WholeFrame())
    assembly_format = "$input `kind` $kind attr-dict `:` type($input) `->` type($result)"

    def infer(self, x: ImageType) -> ImageType:
        element = x.element if self.kind.data != ReduceKind.SUM else ("f32" if x.element_name == "f32" else "i32")
        return like(x, 1, 1, element=element)


@irdl_op_definition
class ScanOp(UnaryImgOp):
    """The integral image: out[y, x] = sum of in[0..y, 0..x] (i32, or f32 for f32 input)."""

    name = "img.scan"
    traits = traits_def(Pure(), WholeFrame())

    def infer(self, x: ImageType) -> ImageType:
        return like(x, element="f32" if x.element_name == "f32" else "i32")


def downsampled(extent: int, factor: int, rounding: Rounding | None) -> int:
    """Output extent of a downsample: exact, floor or ceil of extent / factor."""
    return -(-extent // factor) if rounding == Rounding.CEIL else extent // factor


@irdl_op_definition
class DownsampleOp(UnaryImgOp):
    """Keep the top-left pixel of every fy x fx block (`nearest`) or average the block
    (`average`, rounding half up on integers). When the factor does not divide the frame,
    `rounding floor` drops the last partial block and `rounding ceil` keeps it, its missing
    pixels read through `border` (needed by `average` only)."""

    name = "img.downsample"
    factor = prop_def(DenseArrayBase[I64])
    mode = prop_def(ResampleModeAttr)
    rounding = opt_prop_def(RoundingAttr)
    border = opt_prop_def(BorderAttr)
    traits = traits_def(Pure(), RowStage())
    assembly_format = (
        "$input `factor` $factor `mode` $mode (`rounding` $rounding^)? (`border` $border^)? attr-dict "
        "`:` type($input) `->` type($result)"
    )

    @property
    def factors(self) -> tuple[int, int]:
        fy, fx = _ints(self.factor, 2, "factor")
        return fy, fx

    @property
    def average(self) -> bool:
        return self.mode.data == ResampleMode.AVERAGE

    @property
    def round_mode(self) -> Rounding | None:
        return self.rounding.data if self.rounding is not None else None

    @property
    def border_mode(self) -> Border:
        """The border a partial block reads through (clamp when none can be partial)."""
        return self.border.data if self.border is not None else Border.CLAMP

    def infer(self, x: ImageType) -> ImageType:
        fy, fx = self.factors
        h, w = x.height.data, x.width.data
        if fy < 1 or fx < 1:
            raise VerifyException(f"factor must be positive, got {fy}x{fx}")
        divides = h % fy == 0 and w % fx == 0
        if self.rounding is None and not divides:
            raise VerifyException(
                f"factor {fy}x{fx} must divide the {h}x{w} frame, or say `rounding floor` or `rounding ceil`"
            )
        if self.round_mode == Rounding.FLOOR and (fy > h or fx > w):
            raise VerifyException(f"rounding floor of the {h}x{w} frame by {fy}x{fx} leaves no pixel")
        partial = self.round_mode == Rounding.CEIL and not divides
        if self.border is not None and not (self.round_mode == Rounding.CEIL and self.average):
            raise VerifyException("border is read only by an average downsample with rounding ceil")
        if partial and self.average and self.border is None:
            raise VerifyException(
                f"rounding ceil averages partial blocks of the {h}x{w} frame: say their `border` (clamp, zero or mirror)"
            )
        return like(x, downsampled(h, fy, self.round_mode), downsampled(w, fx, self.round_mode))


@irdl_op_definition
class UpsampleOp(UnaryImgOp):
    """Repeat every pixel fy x fx times."""

    name = "img.upsample"
    factor = prop_def(DenseArrayBase[I64])
    traits = traits_def(Pure(), WholeFrame())
    assembly_format = "$input `factor` $factor attr-dict `:` type($input) `->` type($result)"

    @property
    def factors(self) -> tuple[int, int]:
        fy, fx = _ints(self.factor, 2, "factor")
        return fy, fx

    def infer(self, x: ImageType) -> ImageType:
        fy, fx = self.factors
        if fy < 1 or fx < 1:
            raise VerifyException(f"factor must be positive, got {fy}x{fx}")
        return like(x, x.height.data * fy, x.width.data * fx)


@irdl_op_definition
class CropOp(UnaryImgOp):
    """A static region of interest: rows y..y+h, columns x..x+w."""

    name = "img.crop"
    roi = prop_def(DenseArrayBase[I64])
    traits = traits_def(Pure(), RowStage())
    assembly_format = "$input `roi` $roi attr-dict `:` type($input) `->` type($result)"

    @property
    def box(self) -> tuple[int, int, int, int]:
        y, x, h, w = _ints(self.roi, 4, "roi (y, x, height, width)")
        return y, x, h, w

    def infer(self, x: ImageType) -> ImageType:
        y, x0, h, w = self.box
        if y < 0 or x0 < 0 or h < 1 or w < 1 or y + h > x.height.data or x0 + w > x.width.data:
            raise VerifyException(f"roi {[y, x0, h, w]} is not inside the {x.height.data}x{x.width.data} frame")
        return like(x, h, w)


@irdl_op_definition
class TransmitOp(UnaryImgOp):
    """Send the data over a link (node to cloud): the identity on values; the partitioner
    charges bits x energy per bit and checks bits x frame rate against the bandwidth. The
    link is named by the platform model (examples/img/camera/platforms.json), an open set."""

    name = "img.transmit"
    link = prop_def(StringAttr)
    gbps = prop_def(FloatAttr[Float64Type])
    nj_per_bit = prop_def(FloatAttr[Float64Type])
    traits = traits_def(Pure(), ValueAlias())

    def infer(self, x: ImageType) -> ImageType:
        if self.gbps.value.data <= 0 or self.nj_per_bit.value.data < 0:
            raise VerifyException("gbps must be positive and nj_per_bit non-negative")
        return x


@irdl_op_definition
class EncodeOp(UnaryImgOp):
    """A video encoder as a black box: the identity on values (Tessel does not compress),
    `ratio` x the input's bits for the cost model, `ops_per_pixel` for its compute."""

    name = "img.encode"
    ratio = prop_def(FloatAttr[Float64Type])
    ops_per_pixel = prop_def(FloatAttr[Float64Type])
    traits = traits_def(Pure(), ValueAlias())

    def infer(self, x: ImageType) -> ImageType:
        if not 0 < self.ratio.value.data <= 1:
            raise VerifyException(f"ratio must be in (0, 1], got {self.ratio.value.data}")
        return x


@irdl_op_definition
class SinkOp(ImgOp):
    name = "img.sink"
    input = operand_def(Image)
    assembly_format = "$input attr-dict `:` type($input)"

    def verify_(self) -> None:
        self.verify_placement()


@irdl_op_definition
class SourceOp(ImgOp):
    """A camera: a stream of frames at `fps`; `count` identical cameras share the pipeline
    (a 16-camera rig), which multiplies every rate downstream."""

    name = "img.source"
    result = result_def(StreamType)
    fps = prop_def(FloatAttr[Float64Type])
    camera = opt_prop_def(StringAttr)
    count = opt_prop_def(IntegerAttr[I64])
    assembly_format = "attr-dict `:` type($result)"

    @property
    def cameras(self) -> int:
        return self.count.value.data if self.count is not None else 1

    @property
    def source_name(self) -> str:
        """What its frames are given by: its camera, else its result's name."""
        return self.camera.data if self.camera is not None else (self.result.name_hint or "source")

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
    input = operand_def(Image)
    weights = operand_def(Image)
    result = result_def(Image)
    traits = traits_def(Pure(), WholeFrame())
    assembly_format = "$input `,` $weights attr-dict `:` type($input) `,` type($weights) `->` type($result)"

    def verify_(self) -> None:
        self.verify_placement()
        x, w = image(self.input), image(self.weights)
        n = x.pixels * x.channels.data
        if element_name(w.element) != "i8" or w.height.data != n or w.channels.data != 1:
            raise VerifyException(f"weights must be {n}xKx1 i8 for a {x.shape} input, got {w}")
        if x.element_name not in ("ui8", "i8", "i16", "i32"):
            raise VerifyException(f"input must be an integer image, got {x.element_name}")
        _expect(self, like(x, 1, 1, w.width.data, "i32"))

    @property
    def macs(self) -> int:
        w = image(self.weights)
        return w.height.data * w.width.data


@irdl_op_definition
class GateOp(ImgOp):
    """Drop the frames whose predicate (a 1x1x1 image, non-zero = keep) is false. The
    expected share kept, `pass_rate`, is what the rate analysis and the partitioner use."""

    name = "img.gate"
    input = operand_def(StreamType)
    predicate = operand_def(Image)
    result = result_def(StreamType)
    pass_rate = prop_def(FloatAttr[Float64Type])
    traits = traits_def(ValueAlias())
    assembly_format = "$input `,` $predicate attr-dict `:` type($input) `,` type($predicate) `->` type($result)"

    def verify_(self) -> None:
        self.verify_placement()
        x, p = image(self.input), image(self.predicate)
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
    input = operand_def(Image)
    lut = operand_def(Image)
    result = result_def(Image)
    max_displacement = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure(), WholeFrame())
    assembly_format = "$input `,` $lut `max_displacement` $max_displacement attr-dict `:` type($input) `,` type($lut) `->` type($result)"

    def verify_(self) -> None:
        self.verify_placement()
        x, lut = image(self.input), image(self.lut)
        if lut.channels.data != 2 or element_name(lut.element) not in ("i16", "i32"):
            raise VerifyException(f"lut must have 2 channels of i16 or i32 (row, column), got {lut}")
        if self.max_displacement.value.data < 0:
            raise VerifyException("max_displacement must be non-negative")
        _expect(self, like(x, lut.height.data, lut.width.data))


OPS: list[type[Operation]] = [
    MapOp, StencilOp, YieldOp, LutOp, ReduceOp, ScanOp, DownsampleOp, UpsampleOp, CropOp, GateOp, RemapOp,
    TransmitOp, EncodeOp, SourceOp, SinkOp, DenseOp, ExtractOp, MergeOp,
]  # fmt: skip
