"""The flags a split-K tile needs (cache_tiles.py's `split_reduction` makes such schedules):
whether this pass of the reduction loops outside the accumulator tile is the first (start
from init, not from the output's partial sums) or the last (apply the epilogue), and, for a
clamped tile, which of its points it owns. Kept apart from the loop builder, which calls
them at a tile's start and store."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from tessel.passes.kernel.loops.emitter import Emitter, Index, cmpi
from tessel.passes.kernel.loops.loop import Loop

Vars = dict[int, Index]  # id(loop) -> its variable here


def _all(e: Emitter, flags: Sequence[SSAValue]) -> SSAValue | None:
    """The conjunction of i1 `flags`; None for none."""
    result: SSAValue | None = None
    for flag in flags:
        result = flag if result is None else e.emit(arith.AndIOp(result, flag))
    return result


def pass_flags(
    e: Emitter, outside: Sequence[Loop], vars_: Vars, trips: Callable[[Loop], Index]
) -> tuple[SSAValue | None, SSAValue | None]:
    """(is this the first pass, the last pass) of the reduction loops `outside` the
    accumulator tile, as i1 values; (None, None) where there are none. `trips` gives a
    loop's trip count here."""
    first, last = [], []
    for loop in outside:
        var = e.ssa(vars_[id(loop)])
        first.append(e.emit(cmpi(var, e.index(0), "eq")))
        n = trips(loop)
        final = n - 1 if isinstance(n, int) else e.emit(arith.SubiOp(n, e.index(1)))
        last.append(e.emit(cmpi(var, e.ssa(final), "eq")))
    return _all(e, first), _all(e, last)


def owned(e: Emitter, outer: Sequence[Loop], vars_: Vars, axes: Sequence[Index]) -> SSAValue | None:
    """Whether the tile point at `axes` is the clamped tile's own: not one the tile before
    it computed and stored, whose partial sums already hold this pass's chunk (storing it
    again would add the chunk twice); None if no `outer` loop is clamped."""
    mine = []
    for loop in outer:
        if loop.clamp:
            start = e.mul(vars_[id(loop)], loop.stride)  # where the tile would start unclamped
            mine.append(e.emit(cmpi(e.ssa(axes[loop.axis]), e.ssa(start), "sge")))
    return _all(e, mine)
