"""`he-mod-switch`: move every ciphertext operation down the modulus chain as far as the noise
budget allows, inserting `hev.mod_switch` where a value changes level.

    tessel-opt k.mlir -p he-synthesize,he-select-parameters,he-mod-switch

Dropping a prime of q makes every later operation cheaper: a key switch (rotation,
relinearization) works on one prime fewer, a multiplication extends a smaller base, an
addition touches fewer words. At SEAL's default N=8192, 218-bit q (four data primes) a
rotation costs about 3.6 ms at the top level and 0.7 ms at the last one (the measured
cost table, `levels`). A switch itself costs little (a rounding division, no NTT), but it
caps the noise budget at what the lower level holds: a fresh ciphertext keeps 150 bits at
the top of that chain, 19 at the bottom; a multiplication consumes about 28.

The plan is exact for the cost model: each server operation gets a level (at least its
operands' levels), each ciphertext is switched down once per level its users need (a
chain, shared by the users), the estimated budget of every value — the model of
`selection.noise_left`: an operation keeps the smallest budget of its operands minus what
it consumes at its level, a switch caps the budget at what that level holds — must keep
`margin` bits, and the sum of measured latencies (operations at their levels plus the
switches) is minimized by branch and bound over the levels. Programs are at most a few
dozen operations; the search is bounded (`node_limit`) and says when it stopped early.

Options: `params` (the parameter set to plan for; default the function's `hev.params`, else
SEAL's default N=8192 set), `margin` (bits, as he-select-parameters), `costs` (another cost
table). On each program it sets `hev.params` (if absent), `hev.noise_estimate` and
    hev.mod_switch = {switches = 5, estimated_us = 1234, unswitched_us = 7000, optimal = true}
Programs that already switch, or whose estimate cannot spare a bit, are left as they are.
The result computes the same function (a switch is the identity on the plaintext);
`test_he_mod_switch.py` decrypts both on SEAL and compares.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tessel.dialects import hev
from tessel.dialects.hev import kernel
from tessel.dialects.hev.types import CipherType
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.seal import costs as cost_table
from tessel.targets.seal.costs import Entry
from tessel.targets.seal.params import DEFAULT, by_name
from tessel.targets.seal.selection import _OP_NAMES, DEFAULT_MARGIN, latency_us, noise_left

PARAMS = "hev.params"
NOISE_ESTIMATE = "hev.noise_estimate"
SUMMARY = "hev.mod_switch"
NODE_LIMIT = 200_000


@dataclass(frozen=True)
class LevelPlan:
    levels: dict[Operation, int]  # server operation -> the level it runs at
    estimated_us: float  # operations at their levels plus the switches
    unswitched_us: float
    budget: float  # estimated budget of the result (before apply_plan: of the unswitched program)
    optimal: bool  # the search finished (not cut at the node limit)


def _is_ct(value: SSAValue) -> bool:
    return isinstance(value.type, CipherType)


def plan_levels(fn: func.FuncOp, entry: Entry, t: int, margin: float = DEFAULT_MARGIN,
                node_limit: int = NODE_LIMIT) -> LevelPlan | None:
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
    server = [op for op in ops if type(op) in _OP_NAMES]
    # per value: level, budget, size, end of its switch chain (the lowest level a user needs)
    level: dict[SSAValue, int] = {}
    budget: dict[SSAValue, float] = {}
    end: dict[SSAValue, int] = {}
    for op in ops:
        if isinstance(op, hev.EncryptOp):
            level[op.result] = end[op.result] = 0
            budget[op.result] = at[0].fresh_budget(t)

    def size(v: SSAValue) -> int:
        return v.type.size.data

    # what each operation costs and consumes at each level; what switching costs and caps
    def op_name(op: Operation) -> str:
        if isinstance(op, hev.MultiplyOp) and op.lhs == op.rhs:
            return "square"
        return _OP_NAMES[type(op)]

    lat = [[at[k].latency_us[op_name(op)] for k in range(top + 1)] for op in server]
    cons = [[at[k].consumption(_OP_NAMES[type(op)], t) for k in range(top + 1)] for op in server]
    operands = [list(dict.fromkeys(o for o in op.operands if _is_ct(o))) for op in server]
    rest = [0.0] * (len(server) + 1)
    for i in range(len(server) - 1, -1, -1):
        rest[i] = rest[i + 1] + min(lat[i])
    best: dict = {"cost": float("inf"), "levels": None}
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


def apply_plan(fn: func.FuncOp, plan: LevelPlan) -> int:
    """Rewrite `fn` so each server operation runs at its planned level; returns the number of
    modulus switches inserted."""
    block = fn.body.blocks[0]
    chains: dict[SSAValue, list[SSAValue]] = {}
    switches = 0

    def at_level(v: SSAValue, k: int) -> SSAValue:
        nonlocal switches
        chain = chains.setdefault(v, [v])
        base = v.type.level.data
        while base + len(chain) - 1 < k:
            last = chain[-1]
            hint = v.name_hint or "v"
            ms = hev.ModSwitchOp.make([last], f"{hint}_l{base + len(chain)}")
            anchor = last.owner
            assert isinstance(anchor, Operation)
            block.insert_op_after(ms, anchor)
            chain.append(ms.result)
            switches += 1
        return chain[k - base]

    for op in list(block.ops):
        if op not in plan.levels:
            continue
        k = plan.levels[op]
        new_operands = [at_level(o, k) if _is_ct(o) else o for o in op.operands]
        same = all(a is b for a, b in zip(new_operands, op.operands, strict=True))
        if same and op.infer([o.type for o in new_operands]) == op.results[0].type:
            chains.setdefault(op.results[0], [op.results[0]])
            continue
        new = type(op).make(new_operands, op.results[0].name_hint, **dict(op.properties))
        block.insert_op_before(new, op)
        op.results[0].replace_all_uses_with(new.results[0])
        block.erase_op(op)
        chains[new.results[0]] = [new.results[0]]
    return switches


def mod_switch_function(fn: func.FuncOp, entry: Entry, margin: float = DEFAULT_MARGIN) -> LevelPlan | None:
    """Plan and apply the levels of one program in place (None: left as it is)."""
    t = kernel.interface(fn).plain_modulus
    plan = plan_levels(fn, entry, t, margin)
    if plan is None or all(k == 0 for k in plan.levels.values()):
        return None
    switches = apply_plan(fn, plan)
    plan = replace(plan, budget=noise_left(fn, entry, t), estimated_us=latency_us(fn, entry))
    fn.attributes[SUMMARY] = DictionaryAttr({
        "switches": IntegerAttr(switches, 64),
        "estimated_us": IntegerAttr(round(plan.estimated_us), 64),
        "unswitched_us": IntegerAttr(round(plan.unswitched_us), 64),
        "optimal": BoolAttr.from_bool(plan.optimal),
    })
    return plan


@dataclass(frozen=True)
class HeModSwitch(ModulePass):
    name = "he-mod-switch"

    params: str = ""
    margin: float | int = DEFAULT_MARGIN
    costs: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.margin < 0:
            raise TesselError("he-mod-switch: margin must be >= 0 bits")
        table = cost_table.load(self.costs) if self.costs else cost_table.load()
        for fn in kernel.programs(op):
            if self.params:
                params = by_name(self.params)
            elif PARAMS in fn.attributes:
                attr = fn.attributes[PARAMS]
                if not isinstance(attr, StringAttr):
                    raise TesselError(f"{PARAMS} must be a string, got {attr}", op_location(fn))
                params = by_name(attr.data)
            else:
                params = DEFAULT
            plan = mod_switch_function(fn, table.entry(params), self.margin)
            if plan is None:
                continue
            fn.attributes[PARAMS] = StringAttr(params.name)
            fn.attributes[NOISE_ESTIMATE] = IntegerAttr(int(plan.budget), 64)
