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

The plan (`tessel.passes.he.model.levels`) is exact for the cost model: the cheapest level
for every server operation whose estimated budget keeps `margin` bits, by branch and bound.
This pass applies it with one rewrite pattern: each planned operation takes its operands
switched down to its level (each ciphertext switched once per level, the chain shared by
its users) and is rebuilt with its result type re-inferred.

Options: `params` (the parameter set to plan for; default the function's `hev.params`, else
SEAL's default N=8192 set), `margin` (bits, as he-select-parameters), `costs` (another cost
table). On each program it sets `hev.params` (if absent), `hev.noise_estimate` and
    hev.mod_switch = {switches = 5, estimated_us = 1234, unswitched_us = 7000, optimal = true}
Programs that already switch, or whose estimate cannot spare a bit, are left as they are.
The result computes the same function (a switch is the identity on the plaintext);
`test_he_mod_switch.py` decrypts both on SEAL and compares.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from tessel.dialects import hev
from tessel.dialects.hev import costs as cost_table
from tessel.dialects.hev import kernel
from tessel.dialects.hev.costs import Entry
from tessel.dialects.hev.params import DEFAULT, ParamSet, by_name
from tessel.ir.diagnostics import TesselError, op_location
from tessel.passes.he.model.choice import DEFAULT_MARGIN
from tessel.passes.he.model.estimate import latency_us, noise_left
from tessel.passes.he.model.levels import LevelPlan, is_ct, plan_levels

PARAMS = "hev.params"
NOISE_ESTIMATE = "hev.noise_estimate"
SUMMARY = "hev.mod_switch"


@dataclass
class SwitchToPlannedLevel(RewritePattern):
    """An operation of the plan reads its ciphertext operands at its planned level: each
    operand is switched down (`hev.mod_switch`, right after the value or the previous switch
    of its chain) and the operation is rebuilt with its result type inferred again."""

    plan: LevelPlan
    chains: dict[SSAValue, list[SSAValue]] = field(default_factory=dict)
    switches: int = 0

    def at_level(self, v: SSAValue, k: int, rewriter: PatternRewriter) -> SSAValue:
        chain = self.chains.setdefault(v, [v])
        ct = v.type
        assert isinstance(ct, hev.CipherType)
        base = ct.level.data
        while base + len(chain) - 1 < k:
            last = chain[-1]
            ms = hev.ModSwitchOp.make([last], f"{v.name_hint or 'v'}_l{base + len(chain)}")
            anchor = last.owner
            assert isinstance(anchor, Operation)
            rewriter.insert(ms, InsertPoint.after(anchor))
            chain.append(ms.result)
            self.switches += 1
        return chain[k - base]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op not in self.plan.levels or not isinstance(op, hev.HevOp):
            return
        k = self.plan.levels[op]
        operands = [self.at_level(o, k, rewriter) if is_ct(o) else o for o in op.operands]
        same = all(a is b for a, b in zip(operands, op.operands, strict=True))
        if same and op.infer([o.type for o in operands]) == op.results[0].type:
            self.chains.setdefault(op.results[0], [op.results[0]])
            return
        new = type(op).make(operands, op.results[0].name_hint, **dict(op.properties))
        rewriter.replace(op, new)
        self.chains[new.results[0]] = [new.results[0]]


def apply_plan(fn: func.FuncOp, plan: LevelPlan) -> int:
    """Rewrite `fn` so each server operation runs at its planned level; returns the number of
    modulus switches inserted."""
    pattern = SwitchToPlannedLevel(plan)
    PatternRewriteWalker(pattern, apply_recursively=False).rewrite_region(fn.body)
    return pattern.switches


def mod_switch_function(fn: func.FuncOp, entry: Entry, margin: float = DEFAULT_MARGIN) -> LevelPlan | None:
    """Plan and apply the levels of one program in place (None: left as it is)."""
    t = kernel.interface(fn).plain_modulus
    plan = plan_levels(fn, entry, t, margin)
    if plan is None or all(k == 0 for k in plan.levels.values()):
        return None
    switches = apply_plan(fn, plan)
    plan = replace(plan, budget=noise_left(fn, entry, t), estimated_us=latency_us(fn, entry))
    fn.attributes[SUMMARY] = DictionaryAttr(
        {
            "switches": IntegerAttr(switches, 64),
            "estimated_us": IntegerAttr(round(plan.estimated_us), 64),
            "unswitched_us": IntegerAttr(round(plan.unswitched_us), 64),
            "optimal": BoolAttr.from_bool(plan.optimal),
        }
    )
    return plan


def _params(fn: func.FuncOp, given: str) -> ParamSet:
    """The set to plan for: the option, else the function's hev.params, else the default."""
    if given:
        return by_name(given)
    if PARAMS in fn.attributes:
        attr = fn.attributes[PARAMS]
        if not isinstance(attr, StringAttr):
            raise TesselError(f"{PARAMS} must be a string, got {attr}", op_location(fn))
        return by_name(attr.data)
    return DEFAULT


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
            params = _params(fn, self.params)
            plan = mod_switch_function(fn, table.entry(params), self.margin)
            if plan is None:
                continue
            fn.attributes[PARAMS] = StringAttr(params.name)
            fn.attributes[NOISE_ESTIMATE] = IntegerAttr(int(plan.budget), 64)
