"""Write a kernel spec in Python; get the same `hev.spec` IR as writing it by hand.

    from tessel.dialects.hev.builder import image, kernel, vector

    @kernel(slots=4096)
    def box_blur(x: image(64, 64)):
        return x + x.at(-1, 0) + x.at(0, -1) + x.at(-1, -1)

    @kernel(slots=8, outputs=[0])
    def dot_product(a: vector(), b: vector(public=True)):
        return (a * b).sum()

    box_blur.function()      # the func.func (a fresh one per call)
    box_blur.text()          # its IR as text
    box_blur(np.arange(4096))  # the spec's reference semantics on cleartext vectors

The function body runs once on tracer values (`Vec`): `+ - *` and unary minus on vectors
and Python integers (splat constants), `v.shift(k)` (slot i reads slot i + k), `v.at(dy, dx)`
on values derived from an image (a shift by dy*W + dx), and `v.sum()`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation

from . import spec_ops as S
from .attributes import Domain, DomainAttr
from .kernel import DEFAULT_PLAIN_MODULUS, DOMAIN, IMAGE, PADDED, PLAIN_MODULUS, PUBLIC, SLOTS, SPEC
from .types import VecType


@dataclass(frozen=True)
class Param:
    """How an argument is laid out: see `vector` and `image`."""

    public: bool = False
    bits: bool = False
    image: tuple[int, int] | None = None
    padded: tuple[int, ...] | None = None


def vector(public: bool = False, bits: bool = False, padded: tuple[int, int] | None = None) -> Param:
    """A vector argument: secret (encrypted) unless `public`; `bits` if every slot is 0 or 1;
    `padded=(start, count)`: only those slots hold data, the others are 0."""
    return Param(public, bits, None, padded)


def image(
    height: int, width: int, public: bool = False, bits: bool = False, padded: tuple[int, int, int, int] | None = None
) -> Param:
    """An image argument, row-major in the slots; `padded=(row, col, height, width)`: only
    that block of pixels holds data, the others are 0."""
    return Param(public, bits, (height, width), padded)


class _Trace:
    def __init__(self, slots: int):
        self.type = VecType(slots)
        self.ops: list[Operation] = []
        self.consts: dict[int, Vec] = {}

    def emit(self, op: Operation, image: tuple[int, int] | None) -> Vec:
        self.ops.append(op)
        return Vec(self, op.results[0], image)

    def const(self, value: int) -> Vec:
        if value not in self.consts:
            op = S.SpecConstOp.create(result_types=[self.type], properties={"value": IntegerAttr(value, 64)})
            self.consts[value] = self.emit(op, None)
        return self.consts[value]


class Vec:
    """A traced spec value."""

    def __init__(self, trace: _Trace, value: SSAValue, image: tuple[int, int] | None):
        self._trace, self.value, self.image = trace, value, image

    def _lift(self, other: Vec | int) -> Vec:
        if isinstance(other, Vec):
            return other
        if isinstance(other, (int, np.integer)) and not isinstance(other, bool):
            return self._trace.const(int(other))
        raise TypeError(f"a kernel spec combines vectors and integers, not {type(other).__name__}")

    def _binary(self, cls: type[IRDLOperation], a: Vec | int, b: Vec | int) -> Vec:
        x, y = self._lift(a), self._lift(b)
        op = cls.create(operands=[x.value, y.value], result_types=[self._trace.type])
        return self._trace.emit(op, x.image or y.image)

    def __add__(self, o: Vec | int) -> Vec:
        return self._binary(S.SpecAddOp, self, o)

    def __radd__(self, o: int) -> Vec:
        return self._binary(S.SpecAddOp, o, self)

    def __sub__(self, o: Vec | int) -> Vec:
        return self._binary(S.SpecSubOp, self, o)

    def __rsub__(self, o: int) -> Vec:
        return self._binary(S.SpecSubOp, o, self)

    def __mul__(self, o: Vec | int) -> Vec:
        return self._binary(S.SpecMulOp, self, o)

    def __rmul__(self, o: int) -> Vec:
        return self._binary(S.SpecMulOp, o, self)

    def __neg__(self) -> Vec:
        return self._trace.emit(S.SpecNegOp.create(operands=[self.value], result_types=[self._trace.type]), self.image)

    def shift(self, offset: int) -> Vec:
        """Slot i of the result reads slot (i + offset) mod n."""
        op = S.SpecShiftOp.create(
            operands=[self.value], result_types=[self._trace.type], properties={"offset": IntegerAttr(offset, 64)}
        )
        return self._trace.emit(op, self.image)

    def at(self, dy: int, dx: int) -> Vec:
        """Pixel (i + dy, j + dx) at pixel (i, j), on a value derived from an image."""
        if self.image is None:
            raise TypeError("at(dy, dx) needs a value computed from an image argument; use shift(k) on vectors")
        return self.shift(dy * self.image[1] + dx)

    def sum(self) -> Vec:
        """Every slot holds the sum of all slots."""
        return self._trace.emit(S.SpecSumOp.create(operands=[self.value], result_types=[self._trace.type]), self.image)


class Kernel:
    """A traced spec: build its IR, or evaluate it on cleartext vectors."""

    def __init__(
        self, body: Callable[..., Vec], slots: int, outputs: Sequence[int] | None, plain_modulus: int | None, name: str
    ):
        self.body, self.slots, self.name = body, slots, name
        self.outputs = None if outputs is None else tuple(outputs)
        self.plain_modulus = plain_modulus
        sig = inspect.signature(body, eval_str=True)
        self.params: list[tuple[str, Param]] = []
        for p in sig.parameters.values():
            ann = p.annotation
            if not isinstance(ann, Param):
                raise TypeError(f"kernel {name}: annotate argument '{p.name}' with vector(...) or image(...)")
            self.params.append((p.name, ann))

    @property
    def t(self) -> int:
        return self.plain_modulus or DEFAULT_PLAIN_MODULUS

    def function(self) -> func.FuncOp:
        """A new `hev.spec` func.func for this kernel."""
        t = VecType(self.slots)
        block = Block(arg_types=[t] * len(self.params))
        trace = _Trace(self.slots)
        args = []
        for arg, (pname, param) in zip(block.args, self.params, strict=True):
            arg.name_hint = pname
            args.append(Vec(trace, arg, param.image))
        out = self.body(*args)
        if not isinstance(out, Vec):
            raise TypeError(f"kernel {self.name} must return a vector computed from its arguments")
        block.add_ops([*trace.ops, func.ReturnOp(out.value)])
        arg_attrs = []
        for _, param in self.params:
            d: dict[str, Attribute] = {}
            if param.public:
                d[PUBLIC] = UnitAttr()
            if param.bits:
                d[DOMAIN] = DomainAttr(Domain.BITS)
            if param.image:
                d[IMAGE] = DenseArrayBase.from_list(i64, list(param.image))
            if param.padded:
                d[PADDED] = DenseArrayBase.from_list(i64, list(param.padded))
            arg_attrs.append(DictionaryAttr(d))
        res_attrs = (
            ArrayAttr([DictionaryAttr({SLOTS: DenseArrayBase.from_list(i64, list(self.outputs))})])
            if self.outputs
            else None
        )
        fn = func.FuncOp(
            self.name,
            ([t] * len(self.params), [t]),
            Region(block),
            arg_attrs=ArrayAttr(arg_attrs) if any(d.data for d in arg_attrs) else None,
            res_attrs=res_attrs,
        )
        fn.attributes[SPEC] = UnitAttr()
        if self.plain_modulus is not None:
            fn.attributes[PLAIN_MODULUS] = IntegerAttr(self.plain_modulus, 64)
        return fn

    def module(self) -> ModuleOp:
        return ModuleOp([self.function()])

    def text(self) -> str:
        from tessel.ir.source import print_module

        return print_module(self.module())

    def __call__(self, *inputs: np.ndarray) -> np.ndarray:
        """The spec's reference semantics (mod t) on cleartext vectors."""
        from .reference import run_kernel

        module = self.module()
        fn = module.ops.first
        assert isinstance(fn, func.FuncOp)
        return run_kernel(module, fn, inputs, self.t)


def kernel(
    slots: int, outputs: Sequence[int] | None = None, plain_modulus: int | None = None, name: str | None = None
) -> Callable[[Callable[..., Vec]], Kernel]:
    """Decorator: the function is a kernel spec on `slots`-slot vectors (see the module doc)."""

    def wrap(body: Callable[..., Vec]) -> Kernel:
        return Kernel(body, slots, outputs, plain_modulus, name or body.__name__)

    return wrap
