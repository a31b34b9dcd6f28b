"""kernel-simplify-indices (passes/kernel/simplify_indices.py, loops/affine_simplify.py):
every simplified map equals the original at every point of the domain, for random nested
affine expressions (floordiv, ceildiv, mod, negative coefficients and constants, symbols
left unknown); and on a real composed chain (ViT's head split) it finds the plain index."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.ir.affine import AffineExpr, AffineMap

from tessel.passes.kernel.loops.affine_simplify import simplify_map


@st.composite
def expressions(draw, dims: int, symbols: int, depth: int = 4) -> AffineExpr:
    if depth == 0 or draw(st.integers(0, 9)) < 3:
        leaf = draw(st.integers(0, 9))
        if leaf < 6:
            return AffineExpr.dimension(draw(st.integers(0, dims - 1)))
        if leaf < 7 and symbols:
            return AffineExpr.symbol(draw(st.integers(0, symbols - 1)))
        return AffineExpr.constant(draw(st.integers(-20, 40)))
    a = draw(expressions(dims, symbols, depth - 1))
    kind = draw(st.sampled_from(["add", "mul", "mod", "floordiv", "ceildiv"]))
    if kind == "add":
        return a + draw(expressions(dims, symbols, depth - 1))
    if kind == "mul":
        return a * draw(st.sampled_from([-3, -1, 2, 3, 4, 16, 64]))
    c = draw(st.sampled_from([1, 2, 3, 4, 6, 8, 16, 64, 197]))
    return a % c if kind == "mod" else a // c if kind == "floordiv" else a.ceil_div(c)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_simplified_maps_agree_on_the_whole_domain(data):
    dims = data.draw(st.integers(1, 3))
    symbols = data.draw(st.integers(0, 1))
    extents = [data.draw(st.integers(1, 9)) for _ in range(dims)]
    exprs = tuple(data.draw(expressions(dims, symbols)) for _ in range(data.draw(st.integers(1, 2))))
    original = AffineMap(dims, symbols, exprs)
    simplified = simplify_map(original, [(0, n - 1) for n in extents])
    for point in itertools.product(*(range(n) for n in extents)):
        for sym in [-7, 0, 5] if symbols else [None]:
            syms = [sym] if symbols else []
            assert original.eval(list(point), syms) == simplified.eval(list(point), syms), (original, simplified, point)


def test_the_head_split_of_attention_is_plain_indexing():
    d0, d1, d2, d3 = (AffineExpr.dimension(i) for i in range(4))
    flat = d3 + d2 * 64 + d1 * 12608 + d0 * 75648
    inner = (flat % 64) + ((flat // 12608) % 6) * 64 + ((flat // 64) % 197) * 384
    original = AffineMap(4, 0, ((inner // 384) % 197, inner % 384))
    simplified = simplify_map(original, [(0, 0), (0, 5), (0, 196), (0, 63)])
    assert simplified.results == (d2, d3 + d1 * 64)


def test_an_undecided_division_is_kept():
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    m = AffineMap(2, 0, ((d0 * 2 + d1) // 3, (d1 + 3) % 6))
    assert simplify_map(m, [(0, 3), (0, 3)]) == m


def test_the_channel_shuffle_divides_by_a_multiple_of_the_plane():
    """ShuffleNet's shuffle, 116 channels of 28x28 in pairs: the flat index divided by two
    planes (1568) is the channel divided by two, and the lanes of d3 stay contiguous."""
    d0, d1, d2, d3 = (AffineExpr.dimension(i) for i in range(4))
    flat = d3 + d2 * 28 + d1 * 784 + d0 * 90944
    original = AffineMap(4, 0, (flat // 1568 + (d1 % 2) * 58, flat % 1568))
    simplified = simplify_map(original, [(0, 0), (0, 115), (0, 27), (0, 27)])
    assert simplified.results == (d1 // 2 + (d1 % 2) * 58, (d1 % 2) * 784 + d3 + d2 * 28)
