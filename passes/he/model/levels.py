"""Planning modulus switches: the cheapest level for every server operation of a program
under the measured cost model, keeping the estimated noise budget above a margin.

Each server operation gets a level (at least its operands' levels), each ciphertext is
switched down once per level its users need (a chain, shared by the users), the estimated
budget of every value (the model of `estimate.noise_left`: an operation keeps the smallest
budget of its operands minus what it consumes at its level, a switch caps the budget at
what that level holds) must keep `margin` bits, and the sum of measured latencies
(operations at their levels plus the switches) is minimized by branch and bound over the
levels. Programs are at most a few dozen operations; the search is bounded (`node_limit`)
and says when it stopped early. `he-mod-switch` applies the plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tessel.dialects import hev
from tessel.dialects.hev.costs import Entry
from tessel.dialects.hev.metrics import OP_NAMES, size
from tessel.dialects.hev.types import CipherType
from tessel.passes.he.model.choice import DEFAULT_MARGIN
from tessel.passes.he.model.estimate import latency_us, noise_left

NODE_LIMIT = 200_000


@dataclass(frozen=True)
class LevelPlan:
    levels: dict[Operation, int]  # server operation -> the level it runs at
    estimated_us: float  # operations at their levels plus the switches
    unswitched_us: float
    budget: float  # estimated budget of the result (before apply_plan: of the unswitched program)
    optimal: bool  # the search finished (not cut at the node limit)


def is_ct(value: SSAValue) -> bool:
    return isinstance(value.type, CipherType)


def plan_levels(
    fn: func.FuncOp, entry: Entry, t: int, margin: float = DEFAULT_MARGIN, node_limit: int = NODE_LIMIT
) -> LevelPlan | None:
    """The cheapest level for every server operation of an unswitched program, or None when
    switching cannot help (one-level chain, or no budget to spare)."""
    ops = list(fn.body.blocks[0].ops)
    if any(isinstance(op, hev.ModSwitchOp) for op in ops):
        return None
    top = entry.data_levels - 1
    unswitched_us = latency_us(fn, entry)
    unswitched_budget = noise_left(fn, entry, t)
    if top == 0 or unswitched_budget < margin:
        return None
    at = [entry.level(k) for k in range(top + 1)]
    server = [op for op in ops if type(op) in OP_NAMES]
    # per value: level, budget, size, end of its switch chain (the lowest level a user needs)
    level: dict[SSAValue, int] = {}
    budget: dict[SSAValue, float] = {}
    end: dict[SSAValue, int] = {}
    for op in ops:
        if isinstance(op, hev.EncryptOp):
            level[op.result] = end[op.result] = 0
            budget[op.result] = at[0].fresh_budget(t)

    # what each operation costs and consumes at each level; what switching costs and caps
    def op_name(op: Operation) -> str:
        if isinstance(op, hev.MultiplyOp) and op.lhs == op.rhs:
            return "square"
        return OP_NAMES[type(op)]

    lat = [[at[k].latency_us[op_name(op)] for k in range(top + 1)] for op in server]
    cons = [[at[k].consumption(OP_NAMES[type(op)], t) for k in range(top + 1)] for op in server]
    operands = [list(dict.fromkeys(o for o in op.operands if is_ct(o))) for op in server]
    rest = [0.0] * (len(server) + 1)
    for i in range(len(server) - 1, -1, -1):
        rest[i] = rest[i + 1] + min(lat[i])
    best: dict[str, Any] = {"cost": float("inf"), "levels": None}
    chosen: list[int] = [0] * len(server)
    nodes = [0]

    def cap(v: SSAValue, k: int) -> float:
        """Budget of v switched down to level k."""
        b = budget[v]
        for j in range(level[v] + 1, k + 1):
            b = min(b, at[j].switched_budget(size(v), t))
        return b

    def switch_cost(v: SSAValue, frm: int, to: int) -> float:
        return sum(at[j].switch_us(size(v)) for j in range(frm, to))

    def search(i: int, cost: float) -> None:
        nodes[0] += 1
        if nodes[0] > node_limit:
            return
        if i == len(server):
            if cost < best["cost"]:
                best.update(cost=cost, levels=list(chosen))
            return
        op, ins = server[i], operands[i]
        lo = max((level[v] for v in ins), default=0)
        for k in range(top, lo - 1, -1):  # cheapest level first
            b_in = min(cap(v, k) for v in ins)
            b_out = b_in - cons[i][k]
            if b_out < margin:
                continue
            extra = sum(switch_cost(v, end[v], k) for v in ins if k > end[v])
            c = cost + lat[i][k] + extra
            if c + rest[i + 1] >= best["cost"]:
                continue
            saved = [(v, end[v]) for v in ins]
            for v in ins:
                end[v] = max(end[v], k)
            r = op.results[0]
            level[r], budget[r], end[r] = k, b_out, k
            chosen[i] = k
            search(i + 1, c)
            for v, e in saved:
                end[v] = e
            del level[r], budget[r], end[r]

    search(0, 0.0)
    if best["levels"] is None:
        return None
    levels = dict(zip(server, best["levels"], strict=True))
    return LevelPlan(levels, best["cost"], unswitched_us, unswitched_budget, nodes[0] <= node_limit)
