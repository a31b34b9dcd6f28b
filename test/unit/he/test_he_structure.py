"""The structure he-synthesize gives its search (issue 22): stencil factorization, log trees
over zero-padded windows, the lower bounds that stop the search, the slots a check must look
at under masks and padding, and the budget holding in every phase."""

from __future__ import annotations

import time

import numpy as np
import pytest
from xdsl.context import Context

from tessel.dialects.hev import kernel
from tessel.dialects.hev.builder import image, vector
from tessel.dialects.hev.builder import kernel as spec_kernel
from tessel.dialects.hev.metrics import op_counts
from tessel.ir.diagnostics import TesselError
from tessel.passes.he.synth.bounds import bounds, min_rotations
from tessel.passes.he.synth.cegis import wrong_slot
from tessel.passes.he.synth.lower import structured_programs
from tessel.passes.he.synth.program import ADD, MUL, ROTATE, Component, Operand, Program
from tessel.passes.he.synth.restrict import sketch_shape
from tessel.passes.he.synth.spec import from_function
from tessel.passes.he.synth.stencil import divide, multiply, plans
from tessel.passes.he.synthesize import HeSynthesize

from .conftest import COSTS

T = 65537
W = 8
UNITS = {"add": 3, "sub": 3, "negate": 2, "multiply": 300, "square": 220, "relinearize": 70, "rotate": 70,
         "multiply_plain": 50, "add_plain": 4, "sub_plain": 4}  # fmt: skip


def stencil(taps: dict[tuple[int, int], int], width: int = W) -> dict[int, int]:
    return {dy * width + dx: c for (dy, dx), c in taps.items()}


def test_division_is_exact_or_refused():
    g = multiply({0: 1, 8: 1}, {0: 1, -1: T - 1}, T)
    assert divide(g, {0: 1, 8: 1}, T) == {0: 1, -1: T - 1}
    assert divide(g, {0: 1, 2: 1}, T) is None


@pytest.mark.parametrize(
    ("name", "taps", "rotations"),
    [
        ("sobel", {(-1, -1): -1, (-1, 1): 1, (0, -1): -2, (0, 1): 2, (1, -1): -1, (1, 1): 1}, 4),
        ("gaussian", {(dy, dx): (2 - abs(dy)) * (2 - abs(dx)) for dy in (-1, 0, 1) for dx in (-1, 0, 1)}, 4),
        ("box3", {(dy, dx): 1 for dy in (-1, 0, 1) for dx in (-1, 0, 1)}, 4),
        ("box2", {(0, 0): 1, (-1, 0): 1, (0, -1): 1, (-1, -1): 1}, 2),
    ],
)
def test_stencils_factor_into_fewer_rotations_than_taps(name, taps, rotations):
    """Each plan multiplies back to the stencil, and the best uses the known number of
    rotations (separable forms; the 3x3 ones 4 where their taps need 8)."""
    amounts = [dy * W + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx]
    g = {o: c % T for o, c in stencil(taps).items()}
    found = plans(g, amounts, T)
    assert found and found[0].rotations == rotations
    for plan in found:
        product = {0: plan.scalar}
        for step in plan.steps:
            product = multiply(product, {o: s % T for o, s in step.terms}, T)
        assert product == g, (name, plan)


def test_log_tree_is_found_for_a_window_written_tap_by_tap():
    g = {j: 1 for j in range(16)}
    best = plans(g, [d for d in range(-15, 16) if d], T)[0]
    assert best.rotations == 4 and sorted(o for s in best.steps for o, _ in s.terms if o) == [1, 2, 4, 8]


def test_rotation_lower_bound_is_a_subset_sum_cover():
    """Sobel reads 6 offsets; no 3 amounts of its sketch have subset sums covering them, so
    every program rotates at least 4 times (Porcupine's 4 is optimal); Roberts' 3 offsets
    are covered by {1, 64}."""
    sobel = {-65, -63, -1, 1, 63, 65}
    amounts = [a * 64 + b for a in (-1, 0, 1) for b in (-1, 0, 1) if a or b]
    assert min_rotations(sobel, amounts, 4096, 6) == 4
    assert min_rotations({1, 64, 65}, [1, 64, 65], 4096, 3) == 2
    assert min_rotations(set(range(1, 16)), [1, 2, 4, 8, 3], 64, 15) == 4


def test_bounds_of_a_product_that_is_not_a_square():
    """a * x is not c * L^2: with one multiplication and nothing to rotate, it costs a
    product, so the bound meets the obvious program and nothing is searched."""

    @spec_kernel(slots=16)
    def lin(a: vector(), x: vector(), b: vector()):
        return a * x + b

    spec = from_function(lin.function())
    b = bounds(spec, sketch_shape(spec).rotations[1:])
    assert (b.min_multiplies, b.min_relinearizations, b.rank1) == (1, 1, False)
    assert b.cost(2, UNITS, ("add", "multiply"), rotations=False) == 300 + 70 + 3


def test_relinearizations_go_where_a_product_must_be_size_two():
    """A product added to another product is relinearized once, after the sum; a product
    that is rotated is relinearized before."""
    both = Program(4, [0, 1], [], [Component(MUL, Operand(0), Operand(1)), Component(MUL, Operand(0), Operand(0)),
                                   Component(ADD, Operand(2), Operand(3))])  # fmt: skip
    both.place_relinearizations()
    assert both.relinearize == [False, False, True]
    rotated = Program(4, [0], [], [Component(MUL, Operand(0), Operand(0)), Component(ADD, Operand(1), Operand(1, 1))])
    rotated.place_relinearizations()
    assert rotated.relinearize == [True, False]


def test_zero_padding_classes_and_windowed_sums():
    """A 16-element sum over a zero-padded 64-slot vector: the windowed log tree (4
    rotations) is right at the masked slot; without the padding it would not be."""

    @spec_kernel(slots=64, outputs=[0])
    def padded(x: vector(padded=(0, 16))):
        return x.sum()

    spec = from_function(padded.function())
    programs = structured_programs(spec, UNITS, sketch_shape(spec).rotations[1:], time.monotonic() + 10)
    good = [p for p in programs if wrong_slot(spec, p, spec.check_slots()) is None]
    assert min(len(p.rotations()) for p in good) == 4

    @spec_kernel(slots=64, outputs=[0])
    def full(x: vector()):
        return x.sum()

    plain = from_function(full.function())
    window = Program(64, [0], [], [Component(ADD, Operand(0), Operand(0, 1)), Component(ADD, Operand(1), Operand(1, 2)),
                                   Component(ADD, Operand(2), Operand(2, 4)), Component(ADD, Operand(3), Operand(3, 8))])  # fmt: skip
    assert wrong_slot(spec, window, spec.check_slots()) is None
    assert wrong_slot(plain, window, plain.check_slots()) == 0


def test_masks_check_one_slot_padding_checks_one_per_class():
    @spec_kernel(slots=64, outputs=[r * 8 + c for r in range(1, 7) for c in range(1, 7)])
    def interior(x: image(8, 8)):
        return x + x.at(-1, 0) + x.at(0, -1)

    assert len(from_function(interior.function()).check_slots()) == 1

    @spec_kernel(slots=64, outputs=[r * 8 + c for r in range(4) for c in range(4)])
    def block(x: image(8, 8, padded=(0, 0, 4, 4))):
        return x + x.at(-1, 0) + x.at(0, -1)

    # the corner, the first row, the first column, the rest: 4 kinds of neighbourhood
    assert len(from_function(block.function()).check_slots()) == 4


def test_padded_inputs_are_checked_and_generated():
    @spec_kernel(slots=16, outputs=[0])
    def padded(x: vector(padded=(4, 8))):
        return x.sum()

    iface = kernel.interface(padded.function())
    x = iface.random_inputs(np.random.default_rng(0))[0]
    assert not x[:4].any() and not x[12:].any() and x[4:12].any()
    iface.check_inputs([x])
    x[13] = 5
    with pytest.raises(TesselError, match=r"input 'x' is declared hev.padded = \[4, 8\] but slot 13 holds 5, not 0"):
        iface.check_inputs([x])


def test_a_large_mask_keeps_the_budget():
    """A nonlinear kernel at 3844 of 4096 slots: the structured program is there at once, and
    the search for a cheaper one stops at the budget (in every phase) with what it has."""

    @spec_kernel(slots=4096, outputs=[r * 64 + c for r in range(1, 63) for c in range(1, 63)])
    def roberts(x: image(64, 64)):
        d1 = x.at(1, 1) - x
        d2 = x.at(1, 0) - x.at(0, 1)
        return d1 * d1 + d2 * d2

    module = roberts.module()
    start = time.monotonic()
    HeSynthesize(costs=str(COSTS), budget=3, progress=False).apply(Context(), module)
    elapsed = time.monotonic() - start
    program = kernel.lookup(module, "roberts_synth")
    counts = op_counts(program)
    assert (counts["rotate"], counts["multiply"], counts["relinearize"]) == (3, 2, 1)
    assert elapsed < 3 + 30, elapsed  # the budget, plus starting z3 and the final exact check on a loaded machine


def test_a_lone_rotation_ends_a_program_that_only_shifts_a_product():
    @spec_kernel(slots=8)
    def shifted(a: vector(), b: vector()):
        return (a * b).shift(2)

    spec = from_function(shifted.function())
    (program, *_) = structured_programs(spec, UNITS, sketch_shape(spec).rotations[1:], time.monotonic() + 10)
    assert program.components[-1].op == ROTATE and wrong_slot(spec, program, spec.check_slots()) is None
