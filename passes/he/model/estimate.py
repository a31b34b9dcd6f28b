"""Estimates of a program's noise budget and latency from the measured cost table.

The program's noise is estimated by a forward pass over its operations with the measured
consumption of each (a sum: a binary operation consumes its own cost on top of the noisier
operand); its latency is the sum of the measured latencies of its server operations at the
levels they run at. Both read the IR only; nothing here runs SEAL (the runner reports the
real budget left, so the estimate is checked on every run).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tessel.dialects import hev
from tessel.dialects.hev.costs import Entry
from tessel.dialects.hev.metrics import OP_NAMES, level, size


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
            value = min(ins[0], entry.level(level(op.result)).switched_budget(size(op.input), t))
        elif isinstance(op, hev.DecryptOp):
            result = ins[0]
            continue
        elif ins:
            name = OP_NAMES.get(type(op))
            value = min(ins) - (entry.level(level(op.results[0])).consumption(name, t) if name else 0.0)
        else:
            continue
        budget[op.results[0]] = value
    return result


def op_latency_us(op: Operation, entry: Entry) -> float:
    """Measured latency of one server operation at the level of its operands."""
    name = OP_NAMES.get(type(op))
    if name is None:
        return 0.0
    at = entry.level(level(op.operands[0]))
    if isinstance(op, hev.ModSwitchOp):
        return at.switch_us(size(op.input))
    if isinstance(op, hev.MultiplyOp) and op.lhs == op.rhs:
        name = "square"
    return at.latency_us[name]


def latency_us(fn: func.FuncOp, entry: Entry) -> float:
    """The program's estimated server-side latency: its operations' measured latencies."""
    return sum(op_latency_us(op, entry) for op in fn.body.walk() if type(op) in OP_NAMES)
