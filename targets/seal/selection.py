"""Choosing BFV parameters for a program from the measured cost table.

The program's noise is estimated by a forward pass over its operations with the measured
consumption of each (a sum: a binary operation consumes its own cost on top of the noisier
operand). A parameter set is feasible when the program's vectors fit its rows, t supports
batching at its N, and the estimated budget left is at least `margin` bits; among feasible
sets the one with the lowest estimated latency (the sum of the measured latencies of the
program's operations) wins. The runner then reports the real budget left, so the estimate
is checked on every run.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tessel.dialects import hev
from tessel.dialects.hev import kernel
from tessel.dialects.hev.types import CipherType
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.seal.costs import CostTable, Entry
from tessel.targets.seal.params import ParamSet

DEFAULT_MARGIN = 6  # bits of budget the estimate must leave (decryption needs > 0)

_OP_NAMES = {
    hev.AddOp: "add", hev.SubOp: "sub", hev.MultiplyOp: "multiply", hev.RelinearizeOp: "relinearize",
    hev.NegateOp: "negate", hev.AddPlainOp: "add_plain", hev.SubPlainOp: "sub_plain",
    hev.MultiplyPlainOp: "multiply_plain", hev.ModSwitchOp: "mod_switch", hev.RotateOp: "rotate",
}


def op_counts(fn: func.FuncOp) -> dict[str, int]:
    counts = {name: 0 for name in _OP_NAMES.values()}
    for op in fn.body.walk():
        if type(op) in _OP_NAMES:
            counts[_OP_NAMES[type(op)]] += 1
    return counts


def depth(fn: func.FuncOp) -> int:
    """Multiplicative depth: ct-ct multiplications on the longest path."""
    d: dict[SSAValue, int] = {}
    best = 0
    for op in fn.body.walk():
        if not op.results or op is fn:
            continue
        base = max((d.get(o, 0) for o in op.operands), default=0)
        value = base + (1 if isinstance(op, hev.MultiplyOp) else 0)
        for r in op.results:
            d[r] = value
        best = max(best, value)
    return best


def _level(value: SSAValue) -> int:
    t = value.type
    return t.level.data if isinstance(t, CipherType) else 0


def _size(value: SSAValue) -> int:
    t = value.type
    return t.size.data if isinstance(t, CipherType) else 2


def max_level(fn: func.FuncOp) -> int:
    """The lowest level (most modulus switches) any ciphertext of the program reaches."""
    return max((_level(r) for op in fn.body.walk() for r in op.results), default=0)


def noise_left(fn: func.FuncOp, entry: Entry, t: int) -> float:
    """Estimated budget (bits) of the result.

    A fresh encryption has the measured fresh budget; an operation leaves the smallest
    budget of its ciphertext operands minus what it consumes at their level; a modulus
    switch keeps the budget but at most what a ciphertext of that size keeps when switched
    down to the new level (the noise is scaled down with q, except for a rounding term)."""
    budget: dict[SSAValue, float] = {}
    result = entry.fresh_budget(t)
    for op in fn.body.walk():
        if op is fn or not op.results:
            continue
        ins = [budget[o] for o in op.operands if o in budget]
        if isinstance(op, hev.EncryptOp):
            value = entry.fresh_budget(t)
        elif isinstance(op, hev.ModSwitchOp):
            value = min(ins[0], entry.level(_level(op.result)).switched_budget(_size(op.input), t))
        elif isinstance(op, hev.DecryptOp):
            result = ins[0]
            continue
        elif ins:
            name = _OP_NAMES.get(type(op))
            value = min(ins) - (entry.level(_level(op.results[0])).consumption(name, t) if name else 0.0)
        else:
            continue
        budget[op.results[0]] = value
    return result


def op_latency_us(op: Operation, entry: Entry) -> float:
    """Measured latency of one server operation at the level of its operands."""
    name = _OP_NAMES.get(type(op))
    if name is None:
        return 0.0
    at = entry.level(_level(op.operands[0]))
    if isinstance(op, hev.ModSwitchOp):
        return at.switch_us(_size(op.input))
    if isinstance(op, hev.MultiplyOp) and op.lhs == op.rhs:
        name = "square"
    return at.latency_us[name]


def latency_us(fn: func.FuncOp, entry: Entry) -> float:
    return sum(op_latency_us(op, entry) for op in fn.body.walk() if type(op) in _OP_NAMES)


@dataclass(frozen=True)
class Choice:
    params: ParamSet
    estimated_us: float
    estimated_budget: float
    considered: list[tuple[str, float, float, bool]]  # name, latency, budget, feasible


def select(fn: func.FuncOp, table: CostTable, margin: float = DEFAULT_MARGIN) -> Choice:
    iface = kernel.interface(fn)
    considered = []
    best: Choice | None = None
    for entry in table.available():
        p = entry.params
        fits = iface.slots <= p.slots and (iface.plain_modulus - 1) % (2 * p.poly_modulus_degree) == 0
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


def costs_for_depth(table: CostTable, slots: int, t: int, mult_depth: int, margin: float = DEFAULT_MARGIN) -> tuple[Entry, dict[str, int]]:
    """The cost units (10 microseconds, at least 1) the synthesizer uses for programs of this
    depth: latencies at the cheapest set that leaves `margin` bits after `mult_depth`
    multiplications plus a few bits of rotations and additions."""
    best: Entry | None = None
    for e in table.available():
        p = e.params
        if slots > p.slots or (t - 1) % (2 * p.poly_modulus_degree):
            continue
        need = mult_depth * (e.consumption("multiply", t) + e.consumption("relinearize", t)) + 4 * e.consumption("rotate", t) + 2
        if e.fresh_budget(t) - need < margin:
            continue
        if best is None or e.latency_us["rotate"] < best.latency_us["rotate"]:
            best = e
    if best is None:
        raise TesselError(f"no parameter set in the cost table supports depth {mult_depth} for {slots} slots at t={t}")
    lat = best.latency_us
    units = {name: max(1, round(lat[name] / 10)) for name in
             ("add", "sub", "negate", "multiply", "square", "relinearize", "rotate", "multiply_plain", "add_plain", "sub_plain")}
    return best, units
