"""Data ops: weights and constants and data movement (injective); reductions are in reduction.py.

Large parameters stay outside the text: `tg.weight @conv1.weight : tensor<64x3x7x7xf32>`
names an array in the `.npz` file that the module's `tg.weights` attribute points to,
resolved relative to the IR file. Small values are inline: `tg.constant dense<[1, 2]> :
tensor<2xi64>`.

Data movement is static and canonical: axes are non-negative, a slice is a start and a
step per dim with the extent given by the result type, pads are [begin..., end...].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure

from tessel.ir import dtypes

from .base import (
    CONCAT_FAN_IN,
    INJECTIVE,
    OPAQUE,
    Props,
    TgOp,
    broadcasts_to,
    integer,
    ints,
    num_elements,
    require,
    same_element_type,
    string,
)
from .elementwise import check_scalar_attr

# --------------------------------------------------------------------------- data


@irdl_op_definition
class WeightOp(TgOp):
    """A named parameter stored outside the IR (see the module docstring)."""

    name = "tg.weight"
    sym = prop_def(SymbolRefAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike(), OPAQUE)
    assembly_format = "$sym attr-dict `:` type($result)"

    @property
    def weight_name(self) -> str:
        return self.sym.root_reference.data

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        sym = props["sym"]
        assert isinstance(sym, SymbolRefAttr)
        require(not sym.nested_references.data, lambda: f"weight names are flat symbols, got {sym}")
        require(len(result_types) == 1, "expected one result")


@irdl_op_definition
class ConstantOp(TgOp):
    """An inline tensor value; its type is the type of `value`."""

    name = "tg.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike(), OPAQUE)

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        value = props["value"]
        assert isinstance(value, DenseIntOrFPElementsAttr)
        require(result_types == [value.type], lambda: f"result type must be the value's type {value.type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(value.type, TensorType):
            parser.raise_error("tg.constant expects a dense<...> : tensor<...> value", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict()
        return cls.create(result_types=[value.type], properties={"value": value}, attributes=attrs)


# --------------------------------------------------------------------------- data movement


class GivenResultOp(TgOp):
    """Data movement whose result type is part of the op (reshape, cast-like ops)."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"


@irdl_op_definition
class ReshapeOp(GivenResultOp):
    """Row-major reinterpretation with the same number of elements."""

    name = "tg.reshape"

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        (x,), (y,) = operand_types, result_types
        require(x.element_type == y.element_type, lambda: f"element type must stay {x.element_type}")
        require(
            num_elements(x.get_shape()) == num_elements(y.get_shape()),
            lambda: f"cannot reshape {num_elements(x.get_shape())} elements into {y}",
        )


@irdl_op_definition
class FlattenOp(TgOp):
    """Reshape to 2-D: (prod(shape[:axis]), prod(shape[axis:]))."""

    name = "tg.flatten"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        axis = integer(props, "axis")
        shape = x.get_shape()
        require(0 <= axis <= len(shape), lambda: f"axis {axis} must be in [0, {len(shape)}]")
        return [TensorType(x.element_type, [num_elements(shape[:axis]), num_elements(shape[axis:])])]


@irdl_op_definition
class TransposeOp(TgOp):
    """result.shape[i] = input.shape[perm[i]]."""

    name = "tg.transpose"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    perm = prop_def(DenseArrayBase)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        perm = ints(props, "perm")
        shape = x.get_shape()
        require(
            sorted(perm) == list(range(len(shape))),
            lambda: f"perm {list(perm)} is not a permutation of 0..{len(shape) - 1}",
        )
        return [TensorType(x.element_type, [shape[p] for p in perm])]


@irdl_op_definition
class ConcatOp(TgOp):
    name = "tg.concat"
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, results)"

    @property
    def in_slabs(self) -> bool:
        """Is each piece one contiguous byte range of the row-major result? (Every dim
        before the axis is 1: a channel concat at batch 1, blocked or not, or a sequence
        concat on the outermost axis.) Then the concat is copies, not a kernel."""
        shape = self.result.type.get_shape()
        return all(d == 1 for d in shape[: self.axis.value.data])

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        require(len(operand_types) >= 1, "concat needs at least one input")
        et = same_element_type(list(operand_types), "inputs")
        axis = integer(props, "axis")
        first = operand_types[0].get_shape()
        require(0 <= axis < len(first), lambda: f"axis {axis} must be in [0, {len(first)})")
        total = 0
        for i, t in enumerate(operand_types):
            s = t.get_shape()
            ok = len(s) == len(first) and all(a == b for d, (a, b) in enumerate(zip(s, first)) if d != axis)
            require(ok, lambda: f"input #{i} {t} differs from input #0 outside axis {axis}")
            total += s[axis]
        return [TensorType(et, [total if d == axis else n for d, n in enumerate(first)])]


def copied_in_slabs(op: Operation) -> bool:
    """A concat wider than CONCAT_FAN_IN whose pieces are contiguous slabs of its result
    (ConcatOp.in_slabs) and which the function does not return: tg-to-kernel copies its
    pieces into place (memcpy) instead of building a select over them, so it is neither
    split into a tree (tg-split-concat) nor fused with its neighbours (tg-fuse)."""
    return (
        isinstance(op, ConcatOp)
        and len(op.inputs) > CONCAT_FAN_IN
        and op.in_slabs
        and not any(use.operation.name == "func.return" for use in op.result.uses)
    )


@irdl_op_definition
class SliceOp(GivenResultOp):
    """result[i...] = input[starts + i * steps] per dim; the result type gives the extents."""

    name = "tg.slice"
    starts = prop_def(DenseArrayBase)
    steps = prop_def(DenseArrayBase)

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        (x,), (y,) = operand_types, result_types
        starts, steps = ints(props, "starts"), ints(props, "steps")
        shape, out = x.get_shape(), y.get_shape()
        require(x.element_type == y.element_type, lambda: f"element type must stay {x.element_type}")
        require(
            len(starts) == len(steps) == len(shape) == len(out),
            lambda: f"starts and steps need one entry per dim of {x}",
        )
        for d, (n, start, step, extent) in enumerate(zip(shape, starts, steps, out)):
            require(step != 0, lambda: f"step of dim {d} is zero")
            if extent == 0:
                continue
            last = start + (extent - 1) * step
            require(0 <= start < n and 0 <= last < n, lambda: f"dim {d}: indices {start}..{last} leave [0, {n})")


DEPTH_TO_SPACE_MODES = ("DCR", "CRD")


@irdl_op_definition
class DepthToSpaceOp(TgOp):
    """ONNX DepthToSpace: channel groups of b*b become b x b pixel blocks. DCR: channel
    (i*b + j)*C' + c goes to pixel (h*b + i, w*b + j) of channel c; CRD: channel c*b*b +
    i*b + j does. On a rank-5 NCHW[k]c tensor the channels are the logical ones
    (block * k + lane), and the result is NCHW[k]c too: the op is layout-agnostic, so
    tg-layout can keep a network blocked through it."""

    name = "tg.depth_to_space"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    blocksize = prop_def(IntegerAttr)
    mode = prop_def(StringAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        b = integer(props, "blocksize")
        string(props, "mode", DEPTH_TO_SPACE_MODES)
        shape = x.get_shape()
        require(len(shape) in (4, 5), lambda: f"depth_to_space takes NCHW or NCHW[k]c, got {x}")
        require(b >= 1, lambda: f"blocksize must be positive, got {b}")
        lane = shape[4] if len(shape) == 5 else 1
        channels = shape[1] * lane
        require(channels % (b * b) == 0, lambda: f"{channels} channels do not split into {b}x{b} blocks")
        out_channels = channels // (b * b)
        require(out_channels % lane == 0, lambda: f"{out_channels} output channels do not fill blocks of {lane}")
        out = [shape[0], out_channels // lane, shape[2] * b, shape[3] * b, *shape[4:]]
        return [TensorType(x.element_type, out)]


PAD_MODES = ("constant", "reflect", "edge", "wrap")


@irdl_op_definition
class PadOp(TgOp):
    """Pad (or crop, for negative amounts) each dim by pads[d] before and pads[rank + d] after.

    mode: constant (fill with `value`, default zero), reflect (mirror without the edge),
    edge (repeat the edge) or wrap (periodic), as ONNX Pad.
    """

    name = "tg.pad"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    pads = prop_def(DenseArrayBase)
    mode = prop_def(StringAttr)
    value = opt_prop_def(Attribute)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        shape = x.get_shape()
        pads = ints(props, "pads")
        mode = string(props, "mode", PAD_MODES)
        require(len(pads) == 2 * len(shape), lambda: f"pads must have {2 * len(shape)} entries, got {len(pads)}")
        if (value := props.get("value")) is not None:
            require(mode == "constant", 'only mode "constant" takes a value')
            check_scalar_attr(value, x.element_type, "property 'value'")
        out = [n + pads[d] + pads[d + len(shape)] for d, n in enumerate(shape)]
        require(all(o >= 0 for o in out), lambda: f"pads {list(pads)} crop {x} below zero")
        for d, n in enumerate(shape):
            grow = max(pads[d], pads[d + len(shape)])
            if mode == "constant" or grow <= 0:
                continue
            require(n > 0, lambda: f"{mode} padding needs a non-empty dim {d}")
            require(
                mode != "reflect" or grow < n,
                lambda: f"reflect padding of {grow} needs dim {d} larger than {grow}, got {n}",
            )
        return [TensorType(x.element_type, out)]


@irdl_op_definition
class ExpandOp(GivenResultOp):
    """Broadcast to the result type's shape (numpy rules: leading dims added, size-1 dims
    stretched); ONNX Expand once its two-way broadcast is resolved."""

    name = "tg.expand"

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        (x,), (y,) = operand_types, result_types
        require(x.element_type == y.element_type, lambda: f"element type must stay {x.element_type}")
        require(broadcasts_to(x.get_shape(), y.get_shape()), lambda: f"{x} does not broadcast to {y}")

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [np.broadcast_to(args[0], self.result.type.get_shape())]


@irdl_op_definition
class FillOp(TgOp):
    """A tensor of one value (ONNX ConstantOfShape): no data to store, whatever its size."""

    name = "tg.fill"
    result = result_def(TensorType)
    value = prop_def(Attribute)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "attr-dict `:` type($result)"

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        require(len(result_types) == 1, "expected one result")
        check_scalar_attr(props["value"], result_types[0].element_type, "property 'value'")

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        t = self.result.type
        value = self.value.value.data  # type: ignore[attr-defined]
        return [np.full(t.get_shape(), value, dtypes.to_numpy(t.element_type))]


# Arrays with at most this many elements are written inline as tg.constant; larger ones
# live in the weights file as tg.weight.
INLINE_LIMIT = 16


def constant_op(array: np.ndarray) -> ConstantOp:
    """A tg.constant holding `array` bit for bit."""
    array = np.asarray(array)
    element = dtypes.from_numpy(array.dtype)
    assert isinstance(element, IntegerType | AnyFloat)  # from_numpy makes no other kind
    t = TensorType(element, list(array.shape))
    raw = array.astype(array.dtype.newbyteorder("<")).tobytes()
    value = DenseIntOrFPElementsAttr(t, BytesAttr(raw))
    return ConstantOp.create(result_types=[t], properties={"value": value})


def weight_op(name: str, t: TensorType) -> WeightOp:
    return WeightOp.create(result_types=[t], properties={"sym": SymbolRefAttr(name)})


def is_constant_like(value: SSAValue) -> bool:
    """Defined by tg.constant or tg.weight: known at compile time."""
    return isinstance(value.owner, ConstantOp | WeightOp)


def is_compile_time(value: SSAValue) -> bool:
    """Constant-like, or computed by tg ops from such values only (tg-fold-constants will
    evaluate it): the weights other passes have rewritten, such as a batch-norm fold."""
    seen: set[SSAValue] = set()
    work = [value]
    while work:
        v = work.pop()
        if v in seen or is_constant_like(v):
            continue
        seen.add(v)
        owner = v.owner
        if not isinstance(owner, TgOp) or owner.regions or not owner.operands:
            return False
        work.extend(owner.operands)
    return True


def constant_value(op: ConstantOp) -> np.ndarray:
    """The value of a tg.constant as a numpy array."""
    value = op.value
    dt = dtypes.to_numpy(value.get_element_type())
    shape = value.get_shape()
    raw = value.data.data
    if dt == np.bool_:
        return np.frombuffer(raw, np.int8).astype(np.bool_).reshape(shape)
    return np.frombuffer(raw, dt).reshape(shape).copy()
