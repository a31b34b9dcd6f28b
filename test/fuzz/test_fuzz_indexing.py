"""Differential fuzzing of the indexing ops (dialects/tg/indexing.py): random gathers,
scatters and index masks over every kind of element type, with index tensors that hold
negative indices and indices outside [-n, n) (tg defines those: a gather reads zero, a
scatter drops the update), lowered to kernels and compiled for the CPU, must equal the
reference target bit for bit.

Scatters take duplicate indices: `none` keeps the last update, integer `add`/`mul` wrap, and
`max`/`min` do not round, so every result is exact; float `add`/`mul` (whose sum order would
round) are left out. Integer results are compared bit for bit, float ones value for value:
`max`/`min` of a signed zero pair may keep either zero (numpy's maximum and IEEE's maxNum
disagree; the element-wise fuzzer's contract too).
"""

from __future__ import annotations

from profile import fuzz

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_elementwise import Builder, Graph, floats, integers, run_cpu, run_kernels, same_values
from xdsl.dialects.builtin import StringAttr

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr
from tessel.targets.reference.interpreter import run

DATA = ["float32", "float16", "int64", "int32", "int8", "uint8"]


def data(b: Builder, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype.startswith(("int", "uint")):
        return integers(b.rng, np.dtype(dtype).type, shape)
    return floats(b.rng, dtype, shape, specials=False)  # NaN payloads aside, every value moves bit-exact


def indices(b: Builder, n: int, shape: tuple[int, ...]) -> np.ndarray:
    """Mostly in [-n, n), some outside it, as i64 or i32."""
    dtype = b.draw(st.sampled_from([np.int64, np.int32]))
    inside = b.rng.integers(-n, max(n, 1), size=shape)
    outside = b.rng.choice(np.array([n, n + 3, -n - 1, -n - 7]), size=shape)
    return np.where(b.rng.integers(0, 8, size=shape) == 0, outside, inside).astype(dtype)


def shape(b: Builder, rank: int) -> tuple[int, ...]:
    return tuple(b.draw(st.integers(1, 5)) for _ in range(rank))


def gather(b: Builder, dtype: str) -> None:
    xs = shape(b, b.draw(st.integers(1, 3)))
    axis = b.draw(st.integers(0, len(xs) - 1))
    x = b.input(data(b, dtype, xs))
    i = b.input(indices(b, xs[axis], shape(b, b.draw(st.integers(0, 2)))))
    b.emit(tg.GatherOp, [x, i], {"axis": int_attr(axis)})


def elements_shapes(b: Builder) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """Data shape, axis and index shape of GatherElements / ScatterElements: the indices fit
    in the data outside `axis`, and along it may be longer (indices repeat)."""
    xs = shape(b, b.draw(st.integers(1, 3)))
    axis = b.draw(st.integers(0, len(xs) - 1))
    js = tuple(b.draw(st.integers(1, 6)) if d == axis else b.draw(st.integers(1, n)) for d, n in enumerate(xs))
    return xs, axis, js


def gather_elements(b: Builder, dtype: str) -> None:
    xs, axis, js = elements_shapes(b)
    x = b.input(data(b, dtype, xs))
    i = b.input(indices(b, xs[axis], js))
    b.emit(tg.GatherElementsOp, [x, i], {"axis": int_attr(axis)})


def gather_nd(b: Builder, dtype: str) -> None:
    xs = shape(b, b.draw(st.integers(1, 3)))
    batch = b.draw(st.integers(0, len(xs) - 1))
    k = b.draw(st.integers(1, len(xs) - batch))
    lead = xs[:batch] + shape(b, b.draw(st.integers(0, 1)))
    tuples = np.stack([indices(b, xs[batch + j], lead) for j in range(k)], axis=-1)
    x = b.input(data(b, dtype, xs))
    i = b.input(tuples.astype(np.int64))
    b.emit(tg.GatherNdOp, [x, i], {"batch_dims": int_attr(batch)})


def reductions(dtype: str) -> list[str]:
    return ["none", "max", "min"] + (["add", "mul"] if dtype.startswith(("int", "uint")) else [])


def scatter_elements(b: Builder, dtype: str) -> None:
    xs, axis, js = elements_shapes(b)
    x = b.input(data(b, dtype, xs))
    i = b.input(indices(b, xs[axis], js))
    u = b.input(data(b, dtype, js))
    reduction = b.draw(st.sampled_from(reductions(dtype)))
    b.emit(tg.ScatterElementsOp, [x, i, u], {"axis": int_attr(axis), "reduction": StringAttr(reduction)})


def scatter_nd(b: Builder, dtype: str) -> None:
    xs = shape(b, b.draw(st.integers(1, 3)))
    k = b.draw(st.integers(1, len(xs)))
    lead = shape(b, b.draw(st.integers(1, 2)))
    tuples = np.stack([indices(b, xs[j], lead) for j in range(k)], axis=-1)
    x = b.input(data(b, dtype, xs))
    i = b.input(tuples.astype(np.int64))
    u = b.input(data(b, dtype, lead + xs[k:]))
    reduction = b.draw(st.sampled_from(reductions(dtype)))
    b.emit(tg.ScatterNdOp, [x, i, u], {"reduction": StringAttr(reduction)})


def trilu(b: Builder, dtype: str) -> None:
    xs = shape(b, b.draw(st.integers(2, 3)))
    x = b.input(data(b, dtype, xs))
    k = b.draw(st.integers(-6, 6))
    b.emit(tg.TriluOp, [x], {"upper": bool_attr(b.draw(st.booleans())), "k": int_attr(k)})


def one_hot(b: Builder, dtype: str) -> None:
    depth = b.draw(st.integers(1, 7))
    js = shape(b, b.draw(st.integers(0, 2)))
    axis = b.draw(st.integers(0, len(js)))
    i = b.input(indices(b, depth, js))
    v = b.input(data(b, dtype, (2,)))
    b.emit(tg.OneHotOp, [i, v], {"axis": int_attr(axis), "depth": int_attr(depth)})


OPS = [gather, gather_elements, gather_nd, scatter_elements, scatter_nd, trilu, one_hot]


@st.composite
def indexing_graphs(draw) -> tuple[Graph, bool]:
    """One indexing op, now and then followed by a second one reading its result (a fused
    gather of a gather, a scatter into a gathered tensor)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = Builder(draw, rng)
    dtype = draw(st.sampled_from(DATA))
    draw(st.sampled_from(OPS))(b, dtype)
    if draw(st.booleans()):
        first = b.pool[-1]
        n = first.type.get_shape()  # type: ignore[attr-defined]
        if n:
            axis = draw(st.integers(0, len(n) - 1))
            i = b.input(indices(b, n[axis], shape(b, draw(st.integers(1, 2)))))
            b.emit(tg.GatherOp, [first, i], {"axis": int_attr(axis)})
    return b.finish(), dtype.startswith(("int", "uint"))


@fuzz(ci=25, long=4000)
@given(indexing_graphs())
def test_indexing_graphs_are_exact(case: tuple[Graph, bool]) -> None:
    graph, integer = case
    want = run(graph.module, graph.inputs, {})
    same_values(run_kernels(graph), want, exact_bits=integer)
    same_values(run_cpu(graph), want, exact_bits=integer)
