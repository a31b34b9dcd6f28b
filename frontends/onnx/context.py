"""What an ONNX op converter sees: its node, its inputs as tg values, and a builder.

Converters are registered per ONNX op type with the input positions that must be
compile-time constants (a Reshape's shape, a Slice's starts...). Tessel compiles static
shapes, so such an input has to be an initializer, a Constant node, a Shape of a static
tensor, or a graph input bound to a value by the user (`--bind`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np
import onnx
from onnx import helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp, NameLoc, NoneAttr, StringAttr, TensorType
from xdsl.interpreter import Interpreter
from xdsl.ir import Block, SSAValue
from xdsl.utils.exceptions import VerifyException

from tessel.dialects import tg
from tessel.dialects.tg.base import Props, TgOp
from tessel.dialects.tg.interpret import TgFunctions
from tessel.ir import dtypes
from tessel.ir.diagnostics import TesselError
from tessel.ir.names import ssa_name

Converter = Callable[["NodeContext"], Sequence[SSAValue | None]]


@dataclass(frozen=True)
class ConverterInfo:
    fn: Converter
    static_inputs: tuple[int, ...]


CONVERTERS: dict[str, ConverterInfo] = {}


def converter(*op_types: str, static: tuple[int, ...] = ()) -> Callable[[Converter], Converter]:
    """Register `fn` for ONNX op types; `static` lists inputs that must be constants."""

    def register(fn: Converter) -> Converter:
        for op_type in op_types:
            CONVERTERS[op_type] = ConverterInfo(fn, static)
        return fn

    return register


def value_name(name: str) -> str:
    """An ONNX value name as a readable SSA name hint."""
    return ssa_name(name)


@dataclass
class GraphState:
    """The importer's view of the graph being built, shared by all node contexts."""

    block: Block
    values: dict[str, SSAValue] = field(default_factory=dict)
    # compile-time values of SSA values made from initializers, Constant nodes, bound inputs...
    known: dict[SSAValue, np.ndarray] = field(default_factory=dict)
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    # how the importer converts one node (state, node, index, opset, source); set by the
    # importer, used by the control-flow converters to import their subgraphs
    convert_node: Callable[[GraphState, onnx.NodeProto, int, int, str], None] | None = None
    _folder: Interpreter | None = None

    def folder(self) -> Interpreter:
        """An interpreter with the reference semantics, to evaluate ops on known values."""
        if self._folder is None:
            self._folder = Interpreter(ModuleOp([]))
            self._folder.register_implementations(TgFunctions(self.weights))
        return self._folder

    def add_weight(self, name: str, array: np.ndarray) -> str:
        base, n = name, 0
        while name in self.weights:
            n += 1
            name = f"{base}.{n}"
        self.weights[name] = array
        return name


# A tg op class, named outside NodeContext, whose method `type` shadows the builtin there.
TgOpClass = type[TgOp]


class NodeContext:
    def __init__(self, node: onnx.NodeProto, index: int, opset: int, state: GraphState, where: str):
        self.node = node
        self.index = index
        self.opset = opset
        self.state = state
        self.where = where
        self.attrs = {a.name: a for a in node.attribute}

    # ------------------------------------------------------------------ reporting

    def fail(self, message: str) -> NoReturn:
        raise TesselError(message, self.where)

    # ------------------------------------------------------------------ inputs

    @property
    def num_inputs(self) -> int:
        return len(self.node.input)

    def has_input(self, i: int) -> bool:
        return i < len(self.node.input) and self.node.input[i] != ""

    def input(self, i: int) -> SSAValue:
        if not self.has_input(i):
            self.fail(f"input #{i} is required")
        return self.state.values[self.node.input[i]]

    def optional_input(self, i: int) -> SSAValue | None:
        return self.input(i) if self.has_input(i) else None

    def type(self, i: int) -> TensorType:
        t = self.input(i).type
        assert isinstance(t, TensorType)
        return t

    def shape(self, i: int) -> tuple[int, ...]:
        return self.type(i).get_shape()

    def const(self, i: int, what: str) -> np.ndarray | None:
        """The compile-time value of input i (None when absent); an error when not constant."""
        if not self.has_input(i):
            return None
        name = self.node.input[i]
        value = self.state.known.get(self.state.values[name])
        if value is None:
            self.fail(
                f"input '{name}' ({what}) must be a compile-time constant: an initializer, a Constant "
                f"node, or a graph input bound with --bind {name}=FILE.npy"
            )
        return value

    def const_ints(self, i: int, what: str) -> list[int] | None:
        value = self.const(i, what)
        return None if value is None else [int(v) for v in value.reshape(-1)]

    # ------------------------------------------------------------------ attributes

    def attr(self, name: str, default: Any = None) -> Any:
        a = self.attrs.get(name)
        if a is None:
            return default
        if a.type == onnx.AttributeProto.TENSOR:
            return numpy_helper.to_array(a.t)
        value = helper.get_attribute_value(a)
        if isinstance(value, bytes):
            return value.decode()
        if isinstance(value, list):
            return [v.decode() if isinstance(v, bytes) else v for v in value]
        return value

    def reject_attrs(self, **unsupported: Any) -> None:
        """Fail when an attribute is set to anything but the one value Tessel implements."""
        for name, only in unsupported.items():
            value = self.attr(name)
            if value is not None and value != only:
                self.fail(f"attribute {name}={value!r} is not supported (only {only!r})")

    # ------------------------------------------------------------------ outputs

    @property
    def num_outputs(self) -> int:
        return len(self.node.output)

    def wants_output(self, i: int) -> bool:
        return i < len(self.node.output) and self.node.output[i] != ""

    # ------------------------------------------------------------------ building

    def emit(
        self,
        op_type: TgOpClass,
        operands: Sequence[SSAValue],
        props: Props | None = None,
        result_types: Sequence[TensorType] | None = None,
    ) -> TgOp:
        """Create, verify and append a tg op; a verifier error is reported at this node."""
        try:
            op = op_type.make(operands, props, result_types)
        except VerifyException as err:
            self.fail(f"{op_type.name}: {err}")
        op.location = NameLoc(StringAttr(self.node.name or f"#{self.index}"), NoneAttr())
        out = self.node.output[0] if self.node.output else ""
        if out and op.results:
            op.results[0].name_hint = value_name(out)
        self.state.block.add_op(op)
        return op

    def value(
        self,
        op_type: TgOpClass,
        operands: Sequence[SSAValue],
        props: Props | None = None,
        result_types: Sequence[TensorType] | None = None,
    ) -> SSAValue:
        return self.emit(op_type, operands, props, result_types).results[0]

    def constant(self, array: np.ndarray, hint: str | None = None) -> SSAValue:
        return constant_value(self.state, np.asarray(array), hint or f"{self.node.name or 'const'}", self.where)

    def scalar(self, value: float | int, like: TensorType) -> SSAValue:
        """A rank-0 constant of `like`'s element type."""
        return self.constant(np.asarray(value, dtype=dtypes.to_numpy(like.element_type)))

    def reshape(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        assert isinstance(x.type, TensorType)
        if tuple(shape) == x.type.get_shape():
            return x
        return self.value(tg.ReshapeOp, [x], result_types=[TensorType(x.type.element_type, list(shape))])


def constant_value(state: GraphState, array: np.ndarray, hint: str, where: str) -> SSAValue:
    """An inline tg.constant for small arrays, a tg.weight (stored in `state.weights`) otherwise."""
    try:
        t = TensorType(dtypes.from_numpy(array.dtype), list(array.shape))
    except TypeError as err:
        raise TesselError(str(err), where) from err
    if array.size <= tg.INLINE_LIMIT:
        op: TgOp = tg.constant_op(array)
    else:
        op = tg.weight_op(state.add_weight(hint, array), t)
    op.results[0].name_hint = value_name(hint)
    state.block.add_op(op)
    state.known[op.results[0]] = array
    return op.results[0]
