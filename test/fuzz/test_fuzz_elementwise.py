"""Differential fuzzing of the element-wise ops (family A: dialects/tg/math.py, logic.py,
elementwise.py) over every element type: random graphs of them, fused into one kernel,
must compute on the kernel evaluator and compiled for the CPU what the reference target
computes.

- Integer and boolean graphs (add, sub, mul, div, mod, pow, min, max, abs, sign, neg,
  and/or/xor/not, shifts, comparisons, where, casts between integer types) are exact:
  the results must be equal bit for bit, whatever the inputs (0 divisors, MIN / -1,
  shifts past the width, negative powers).
- Float graphs of the ops that do not round (min, max, abs, neg, sign, floor, ceil,
  round, mod, comparisons, where, isnan, isinf, casts to integers) must be equal value for value
  (NaN where the reference has NaN; the sign of a zero may differ, as numpy's minimum and
  IEEE's disagree on it) over inputs with infinities, NaNs, signed zeros and subnormals.
- One rounding function (exp, log, the trigonometric family, pow, erf, ...) on random
  floats must be within a few units in the last place of the reference's (float64,
  rounded once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from profile import fuzz

import ml_dtypes
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import BFloat16Type, IntegerType, ModuleOp, Signedness, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Region, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr
from tessel.ir import dtypes
from tessel.ir.source import print_module, verify
from tessel.targets.reference.interpreter import run

INTEGERS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
# ulps of the result type a rounding function may differ by (libm and the f32 polynomials
# are within 2.5; a 16-bit result is the f32 value rounded once more)
ULPS = {"float16": 1.0, "bfloat16": 1.0, "float32": 4.0, "float64": 4.0}


@dataclass
class Graph:
    module: ModuleOp
    inputs: list[np.ndarray]

    def __repr__(self) -> str:  # hypothesis shows the failing graph as IR, with its inputs
        return "\n" + print_module(self.module) + "\n" + "\n".join(repr(a) for a in self.inputs)


@dataclass
class Builder:
    draw: object
    rng: np.random.Generator
    block: Block = field(default_factory=Block)
    inputs: list[np.ndarray] = field(default_factory=list)
    pool: list[SSAValue] = field(default_factory=list)

    def __post_init__(self) -> None:
        last = self.draw(st.sampled_from([1, 3, 16, 37]))  # a tail after whole vectors, too
        self.shape = tuple(self.draw(st.lists(st.integers(1, 3), max_size=2))) + (last,)

    def operand_shape(self) -> tuple[int, ...]:
        """The full shape, or one that broadcasts to it (dims dropped or set to 1)."""
        shape = list(self.shape[self.draw(st.integers(0, len(self.shape))) :])
        return tuple(1 if self.draw(st.integers(0, 3)) == 0 else d for d in shape)

    def input(self, array: np.ndarray) -> SSAValue:
        arg = self.block.insert_arg(TensorType(dtypes.from_numpy(array.dtype), list(array.shape)), len(self.inputs))
        arg.name_hint = f"in{len(self.inputs)}"
        self.inputs.append(array)
        self.pool.append(arg)
        return arg

    def emit(self, op_type: type[tg.TgOp], operands: list[SSAValue], props: dict | None = None, **kw) -> SSAValue:
        op = op_type.make(operands, props, **kw)
        self.block.add_op(op)
        self.pool.append(op.results[0])
        return op.results[0]

    def pick(self, element: Attribute) -> SSAValue | None:
        candidates = [v for v in self.pool if v.type.element_type == element]  # type: ignore[attr-defined]
        if not candidates:
            return None
        return candidates[len(candidates) - 1 - self.draw(st.integers(0, len(candidates) - 1))]

    def finish(self) -> Graph:
        outputs = [v for v in self.pool if not v.uses and v not in self.block.args] or [self.pool[-1]]
        self.block.add_op(func.ReturnOp(*outputs))
        fn = func.FuncOp("main", ([a.type for a in self.block.args], [v.type for v in outputs]), Region(self.block))
        module = ModuleOp([fn])
        verify(module)
        return Graph(module, self.inputs)


# --------------------------------------------------------------------------- values


def integers(rng: np.random.Generator, dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform over the type, with its edge values (0, ±1, MIN, MAX) and small numbers mixed in."""
    info = np.iinfo(dtype)
    wide = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    small = rng.integers(max(info.min, -9), 10, size=shape).astype(dtype)
    edges = rng.choice(np.array([0, 1, info.max, info.min, info.max - 1] + ([-1] if info.min else []), dtype), shape)
    kind = rng.integers(0, 3, size=shape)
    return np.where(kind == 0, wide, np.where(kind == 1, small, edges)).astype(dtype)


def floats(rng: np.random.Generator, dtype: str, shape: tuple[int, ...], specials: bool = True) -> np.ndarray:
    dt = dtypes.to_numpy(float_type(dtype))
    values = rng.standard_normal(shape) * np.exp2(rng.integers(-6, 7, size=shape))
    values = np.where(rng.integers(0, 4, size=shape) == 0, np.round(values), values)  # ties and whole numbers
    if specials:
        pick = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -2.5, 1e-40, 65504.0]), shape)
        values = np.where(rng.integers(0, 5, size=shape) == 0, pick, values)
    with np.errstate(all="ignore"):
        return values.astype(dt)


def float_type(name: str) -> Attribute:
    return BFloat16Type() if name == "bfloat16" else dtypes.from_numpy(np.dtype(name))


# --------------------------------------------------------------------------- exact graphs

INT_BINARY = [tg.AddOp, tg.SubOp, tg.MulOp, tg.DivOp, tg.ModOp, tg.PowOp, tg.MinOp, tg.MaxOp]
LOGIC = [tg.AndOp, tg.OrOp, tg.XorOp]
COMPARE = [tg.EqualOp, tg.LessOp, tg.GreaterOp, tg.LessEqualOp, tg.GreaterEqualOp]


def _signed(element: Attribute) -> bool:
    return isinstance(element, IntegerType) and element.signedness.data != Signedness.UNSIGNED


def integer_step(b: Builder, element: Attribute) -> None:
    x = b.pick(element)
    y = b.pick(element)
    assert x is not None and y is not None
    kind = b.draw(st.sampled_from(["binary", "logic", "unary", "shift", "compare", "cast"]))
    if kind == "binary":
        op = b.draw(st.sampled_from(INT_BINARY))
        props = {"fmod": bool_attr(True)} if op is tg.ModOp and b.draw(st.booleans()) else {}
        b.emit(op, [x, y], props)
    elif kind == "logic":
        b.emit(b.draw(st.sampled_from(LOGIC)), [x, y])
    elif kind == "unary":
        ops = [tg.AbsOp, tg.SignOp, tg.NotOp] + ([tg.NegOp, tg.ReluOp] if _signed(element) else [])
        b.emit(b.draw(st.sampled_from(ops)), [x])
    elif kind == "shift":
        b.emit(tg.BitShiftOp, [x, y], {"direction": StringAttr(b.draw(st.sampled_from(["left", "right"])))})
    elif kind == "compare":
        c = b.emit(b.draw(st.sampled_from(COMPARE)), [x, y])
        other = b.pick(IntegerType(1))
        if other is not None and other is not c and b.draw(st.booleans()):
            c = b.emit(b.draw(st.sampled_from([*LOGIC, *COMPARE])), [c, other])
        b.emit(tg.WhereOp, [c, x, y])
    else:  # to another integer type and back: wrapping, extension by sign or zero
        other = dtypes.from_numpy(np.dtype(b.draw(st.sampled_from(INTEGERS))))
        t = x.type
        assert isinstance(t, TensorType)
        there = b.emit(tg.CastOp, [x], result_types=[TensorType(other, t.get_shape())])
        b.emit(tg.CastOp, [there], result_types=[t])


@st.composite
def integer_graphs(draw) -> Graph:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = Builder(draw, rng)
    dtype = draw(st.sampled_from(INTEGERS))
    element = dtypes.from_numpy(np.dtype(dtype))
    for _ in range(2):
        b.input(integers(rng, dtype, b.operand_shape()))
    for _ in range(draw(st.integers(1, 6))):
        integer_step(b, element)
    return b.finish()


EXACT_FLOAT_UNARY = [tg.AbsOp, tg.NegOp, tg.SignOp, tg.FloorOp, tg.CeilOp, tg.RoundOp, tg.ReluOp]


def exact_float_step(b: Builder, element: Attribute) -> None:
    x = b.pick(element)
    y = b.pick(element)
    assert x is not None and y is not None
    kind = b.draw(st.sampled_from(["unary", "minmax", "mod", "where", "classify", "to_int"]))
    if kind == "unary":
        b.emit(b.draw(st.sampled_from(EXACT_FLOAT_UNARY)), [x])
    elif kind == "minmax":
        b.emit(b.draw(st.sampled_from([tg.MinOp, tg.MaxOp])), [x, y])
    elif kind == "mod":
        b.emit(tg.ModOp, [x, y], {"fmod": bool_attr(True)} if b.draw(st.booleans()) else {})
    elif kind == "where":
        b.emit(tg.WhereOp, [b.emit(b.draw(st.sampled_from(COMPARE)), [x, y]), x, y])
    elif kind == "classify":
        test = b.emit(b.draw(st.sampled_from([tg.IsNanOp, tg.IsInfOp])), [x])
        b.emit(tg.WhereOp, [b.emit(tg.NotOp, [test]), x, y])
    else:  # to an integer type (truncation; out of range and NaN as numpy on x86-64) and back
        t = x.type
        assert isinstance(t, TensorType)
        integer = dtypes.from_numpy(np.dtype(b.draw(st.sampled_from(INTEGERS))))
        there = b.emit(tg.CastOp, [x], result_types=[TensorType(integer, t.get_shape())])
        b.emit(tg.CastOp, [there], result_types=[t])


@st.composite
def exact_float_graphs(draw) -> Graph:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = Builder(draw, rng)
    name = draw(st.sampled_from(FLOATS))
    for _ in range(2):
        b.input(floats(rng, name, b.operand_shape()))
    for _ in range(draw(st.integers(1, 5))):
        exact_float_step(b, float_type(name))
    return b.finish()


# --------------------------------------------------------------------------- rounding functions

ROUNDING = [
    tg.ExpOp,
    tg.LogOp,
    tg.SqrtOp,
    tg.TanhOp,
    tg.SigmoidOp,
    tg.ErfOp,
    tg.Expm1Op,
    tg.Log1pOp,
    tg.ReciprocalOp,
    tg.SinOp,
    tg.CosOp,
    tg.TanOp,
    tg.AsinOp,
    tg.AcosOp,
    tg.AtanOp,
    tg.SinhOp,
    tg.CoshOp,
    tg.AsinhOp,
    tg.AcoshOp,
    tg.AtanhOp,
    tg.PowOp,
]


@st.composite
def rounding_graphs(draw) -> Graph:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = Builder(draw, rng)
    name = draw(st.sampled_from(FLOATS))
    op = draw(st.sampled_from(ROUNDING))
    x = b.input(floats(rng, name, b.shape, specials=draw(st.booleans())))
    if op is tg.PowOp:
        exponent = floats(rng, name, b.operand_shape(), specials=False)
        b.emit(op, [x, b.input(exponent)])
    else:
        b.emit(op, [x])
    return b.finish()


# --------------------------------------------------------------------------- targets


def run_kernels(graph: Graph) -> list[np.ndarray]:
    from tessel.dialects.kernel.reference import run_kernel_module
    from tessel.pipelines.tensor import lower

    module = graph.module.clone()
    store, _ = lower(module, {}, stop_after="tg-to-kernel")
    return run_kernel_module(module, graph.inputs, store)


def run_cpu(graph: Graph) -> list[np.ndarray]:
    from tessel.pipelines.tensor import compile_for_cpu

    executable, _ = compile_for_cpu(graph.module.clone(), {}, threads=2)
    try:
        return executable.run(list(graph.inputs))
    finally:
        executable.close()


def same_values(got: list[np.ndarray], want: list[np.ndarray], exact_bits: bool) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        if exact_bits:
            assert g.tobytes() == w.tobytes(), f"got {g}, want {w}"
            continue
        gf, wf = g.astype(np.float64), w.astype(np.float64)
        same = (gf == wf) | (np.isnan(gf) & np.isnan(wf))
        assert same.all(), f"got {g[~same]}, want {w[~same]} (of {w.size})"


def within_ulps(got: list[np.ndarray], want: list[np.ndarray], dtype: str) -> None:
    for g, w in zip(got, want):
        g64, w64 = np.asarray(g).astype(np.float64), np.asarray(w).astype(np.float64)
        nan = np.isnan(w64)
        assert (np.isnan(g64) == nan).all(), f"NaN where the reference has none or none where it has: {g}, {w}"
        inf = np.isinf(w64)
        assert (g64[inf] == w64[inf]).all(), f"got {g64[inf]}, want {w64[inf]}"
        finite = ~nan & ~inf
        spacing = np.abs(np.spacing(np.asarray(w)[finite])).astype(np.float64)
        tiny = np.float64(ml_dtypes.finfo(np.asarray(w).dtype).smallest_subnormal)  # (numpy's: no bfloat16)
        err = np.abs(g64[finite] - w64[finite]) / np.maximum(spacing, tiny)
        assert not err.size or err.max() <= ULPS[dtype], f"{err.max():.2f} ulps: got {g64[finite]}, want {w64[finite]}"


@fuzz(ci=15, long=3000)
@given(integer_graphs())
def test_integer_graphs_are_exact(graph: Graph) -> None:
    want = run(graph.module, graph.inputs, {})
    same_values(run_kernels(graph), want, exact_bits=True)
    same_values(run_cpu(graph), want, exact_bits=True)


@fuzz(ci=15, long=3000)
@given(exact_float_graphs())
def test_float_graphs_that_do_not_round_are_exact(graph: Graph) -> None:
    want = run(graph.module, graph.inputs, {})
    same_values(run_kernels(graph), want, exact_bits=False)
    same_values(run_cpu(graph), want, exact_bits=False)


@fuzz(ci=20, long=3000)
@given(rounding_graphs())
def test_rounding_functions_are_within_ulps(graph: Graph) -> None:
    want = run(graph.module, graph.inputs, {})
    dtype = str(np.asarray(want[0]).dtype)
    within_ulps(run_cpu(graph), want, dtype)
