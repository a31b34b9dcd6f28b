"""Choosing BFV parameters for a program, and the synthesizer's cost units, from the
measured cost table.

A parameter set is feasible when the program's vectors fit its rows, t supports batching at
its N, its chain is long enough for the program's lowest level, and the estimated budget
left (`estimate.noise_left`) is at least `margin` bits; among feasible sets the one with
the lowest estimated latency (`estimate.latency_us`) wins. The runner then reports the
real budget left, so the estimate is checked on every run.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func

from tessel.dialects.hev import kernel
from tessel.dialects.hev.costs import CostTable, Entry
from tessel.dialects.hev.metrics import depth, max_level
from tessel.dialects.hev.params import ParamSet
from tessel.ir.diagnostics import TesselError, op_location
from tessel.passes.he.model.estimate import latency_us, noise_left

DEFAULT_MARGIN = 6  # bits of budget the estimate must leave (decryption needs > 0)


def batches(t: int, poly_modulus_degree: int) -> bool:
    """t supports batching at ring degree N: t = 1 mod 2N (a prime, checked by the kernel)."""
    return (t - 1) % (2 * poly_modulus_degree) == 0


@dataclass(frozen=True)
class Choice:
    params: ParamSet
    estimated_us: float
    estimated_budget: float
    considered: list[tuple[str, float, float, bool]]  # name, latency, budget, feasible


def select(fn: func.FuncOp, table: CostTable, margin: float = DEFAULT_MARGIN) -> Choice:
    """The cheapest feasible parameter set for a program (a TesselError when none fits)."""
    iface = kernel.interface(fn)
    considered = []
    best: Choice | None = None
    for entry in table.available():
        p = entry.params
        fits = iface.slots <= p.slots and batches(iface.plain_modulus, p.poly_modulus_degree)
        if max_level(fn) >= entry.data_levels:
            considered.append((p.name, float("inf"), float("-inf"), False))
            continue
        budget = noise_left(fn, entry, iface.plain_modulus)
        lat = latency_us(fn, entry)
        ok = fits and budget >= margin
        considered.append((p.name, lat, budget, ok))
        if ok and (best is None or lat < best.estimated_us):
            best = Choice(p, lat, budget, considered)
    if best is None:
        raise TesselError(
            f"no parameter set in the cost table fits @{iface.name} ({iface.slots} slots, t={iface.plain_modulus}, "
            f"depth {depth(fn)}, margin {margin} bits)",
            op_location(fn),
        )
    return Choice(best.params, best.estimated_us, best.estimated_budget, considered)


def costs_for_depth(
    table: CostTable, slots: int, t: int, mult_depth: int, margin: float = DEFAULT_MARGIN
) -> tuple[Entry, dict[str, int]]:
    """The cost units (10 microseconds, at least 1) the synthesizer uses for programs of this
    depth: latencies at the cheapest set that leaves `margin` bits after `mult_depth`
    multiplications plus a few bits of rotations and additions."""
    best: Entry | None = None
    for e in table.available():
        p = e.params
        if slots > p.slots or not batches(t, p.poly_modulus_degree):
            continue
        need = (
            mult_depth * (e.consumption("multiply", t) + e.consumption("relinearize", t))
            + 4 * e.consumption("rotate", t)
            + 2
        )
        if e.fresh_budget(t) - need < margin:
            continue
        if best is None or e.latency_us["rotate"] < best.latency_us["rotate"]:
            best = e
    if best is None:
        batching = [e.params.name for e in table.available() if batches(t, e.params.poly_modulus_degree)]
        why = "" if batching else f" (none batches at t={t}: t must be 1 mod 2N, e.g. 65537 or 786433)"
        raise TesselError(
            f"no parameter set in the cost table supports depth {mult_depth} for {slots} slots at t={t}{why}"
        )
    lat = dict(best.latency_us)
    # add and sub do the same work (one pass over the coefficients of both operands: SEAL's
    # add_poly_coeffmod and sub_poly_coeffmod), as do add_plain and sub_plain: one class each,
    # priced at the mean of the two measurements, so that which of the two a program uses is
    # not a difference the search has to prove optimal
    for pair in (("add", "sub"), ("add_plain", "sub_plain")):
        mean = sum(lat[op] for op in pair) / 2
        for op in pair:
            lat[op] = mean
    # a square is never dearer than a product: the product's algorithm computes it too
    lat["square"] = min(lat["square"], lat["multiply"])
    units = {
        name: max(1, round(lat[name] / 10))
        for name in (
            "add",
            "sub",
            "negate",
            "multiply",
            "square",
            "relinearize",
            "rotate",
            "multiply_plain",
            "add_plain",
            "sub_plain",
        )
    }
    return best, units
