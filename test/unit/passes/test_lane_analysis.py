"""How the loop builder sees an index change across the lanes of an aligned vector: this
decides contiguous vector loads versus per-lane gathers, so a wrong answer reads wrong
data. Each claim is checked against evaluating the expression lane by lane."""

from __future__ import annotations

import pytest
from xdsl.ir.affine import AffineExpr

from tessel.passes.kernel.loops.affine_analysis import aligned_lane_coefficient

d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)

CASES = [
    (d0, 16, 1),
    (d0 * 3 + d1, 16, 3),
    (d0 // 16, 16, 0),  # packed dense weight: block index
    (d0 % 16, 16, 1),  # ... and lane within the block
    (d0 // 32, 16, 0),
    (d0 % 32, 16, 1),
    ((d0 + d1 * 16) % 16, 16, 1),
    ((d0 + 16) // 16, 16, 0),
    ((d0 // 16) * 16 + d0 % 16, 16, 1),
    (d0 // 1, 16, 1),
    (d0 // 8, 16, None),  # two blocks within one vector
    (d0 % 8, 16, None),
    ((d0 + 3) // 16, 16, None),  # a vector straddles two blocks
    ((d0 + d1) % 16, 16, None),  # unknown offset
    (d1 // 16, 16, 0),
]


@pytest.mark.parametrize("expr,width,expected", CASES, ids=[str(c[0]) for c in CASES])
def test_claimed_coefficient(expr, width, expected):
    assert aligned_lane_coefficient(expr, 0, width) == expected


@pytest.mark.parametrize(
    "expr,width,expected", [c for c in CASES if c[2] is not None], ids=[str(c[0]) for c in CASES if c[2] is not None]
)
def test_claims_hold_lane_by_lane(expr, width, expected):
    for base in range(0, 4 * width, width):  # aligned vector starts
        for other in range(0, 40):
            values = [expr.eval([base + lane, other], []) for lane in range(width)]
            assert all(v - values[0] == expected * lane for lane, v in enumerate(values)), (base, other)
