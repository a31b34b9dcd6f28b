"""CP-SAT models of the synthesis problem: one builder, three uses.

- `relax`   routing only: per flow a tree (broadcast), in-tree (reduction) or path (unicast)
            with arrival times, and every link/port's total load bounded by the makespan,
            but no ordering. TACCL's stage-1 MILP; cheap, and its optimum is a lower bound.
- `exact`   routing and scheduling together: each (flow, link) use is an optional interval
            and every link and port is a NoOverlap resource, so serialisation on NVLinks,
            NIC sides and switch ports is exact (research/taccl.md section 5: CP-SAT proves
            NDv2x2 optimal in seconds where big-M MILP and SMT stall).
- `polish`  routes fixed (from `relax` or a baseline), order and times free: the exact
            scheduling model on a fixed tree, warm-started from the greedy order.

Warm start (`hint`, exact and polish): the plan is re-timed in the model's integer units in
its own order (`order.in_units`), checked against the model's constraints in Python, and
given to CP-SAT as a complete solution (every variable hinted); its makespan becomes the
horizon, so CP-SAT only searches for schedules at least as good, and if it finds none in
time the hint itself is the answer (status `HINT`). The result is therefore never worse
than the hint in the model. A hint that breaks the symmetry ties switches symmetry off.

Broadcast: every member receives exactly once, a send leaves after its chunk arrived.
Reduction: every non-root member sends its partial exactly once, after all partials sent
to it arrived; the root's last arrival completes the flow. Unicast: a path. ALLREDUCE's
broadcast of a chunk starts when its reduction has completed at the root.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from tessel.dialects.coll.model import SwitchPolicy
from tessel.dialects.coll.plan import Plan, Send

from .order import check_units, in_units, units_makespan, units_plan
from .problem import Key, Problem


@dataclass
class Solution:
    status: str
    objective: float  # us
    bound: float  # us
    wall: float
    routes: dict[int, list[Key]] = field(default_factory=dict)
    plan: Plan | None = None
    hint: float | None = None  # the warm start's makespan in the model (us), when one was usable
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status in ("OPTIMAL", "FEASIBLE", "HINT")


def solve(
    p: Problem,
    mode: str,
    *,
    routes: dict[int, list[Key]] | None = None,
    hint: Plan | None = None,
    time_limit: float = 10.0,
    workers: int = 2,
    seed: int = 0,
    symmetry: bool = True,
    fix_to_hint: bool = False,
) -> Solution:
    """`fix_to_hint` (a check for tests): fix every variable to its hinted value, so that
    CP-SAT itself says whether the warm start is a feasible solution of the model."""
    assert mode in ("relax", "exact", "polish")
    start = time.perf_counter()
    m = cp_model.CpModel()
    dur = p.dur
    edges = routes if routes is not None else p.edges
    notes: list[str] = []
    starts: dict[tuple[int, Key], int] | None = None
    if hint is not None and mode != "relax":
        allowed = {(fid, e) for fid, es in edges.items() for e in es}
        problems = [
            f"flow {s.flow} {(s.src, s.dst)} is not a candidate"
            for s in hint.sends
            if (s.flow, (s.src, s.dst)) not in allowed
        ][:1]
        if not problems:
            starts = in_units(p, hint)
            problems = check_units(p, starts)[:1]
        if problems:
            notes.append(f"warm start unusable: {problems[0]}")
            starts = None
        elif symmetry and p.perms and starts is not None and check_units(p, starts, symmetry=True):
            notes.append("warm start is not symmetric: symmetry ties off")
            symmetry = False
    if starts is not None:
        horizon = units_makespan(p, starts)  # the warm start bounds the makespan
    else:
        horizon = sum(dur[e] for es in edges.values() for e in es) + 1
    x: dict[tuple[int, Key], cp_model.IntVar] = {}
    s: dict[tuple[int, Key], cp_model.IntVar] = {}
    intervals: dict[Key, list] = {}
    done: dict[int, cp_model.IntVar] = {}
    arrive: dict[tuple[int, int], cp_model.IntVar] = {}
    makespan = m.new_int_var(0, horizon, "makespan")
    fixed = routes is not None

    for f in p.flows:
        for e in edges[f.id]:
            k = (f.id, e)
            x[k] = m.new_constant(1) if fixed else m.new_bool_var(f"x{f.id}_{e[0]}_{e[1]}")
            s[k] = m.new_int_var(0, horizon, f"s{f.id}_{e[0]}_{e[1]}")
            if mode != "relax":
                if fixed:
                    iv = m.new_fixed_size_interval_var(s[k], dur[e], f"i{f.id}_{e[0]}_{e[1]}")
                else:
                    iv = m.new_optional_fixed_size_interval_var(s[k], dur[e], x[k], f"i{f.id}_{e[0]}_{e[1]}")
                intervals.setdefault(e, []).append(iv)
        done[f.id] = m.new_int_var(0, horizon, f"done{f.id}")

    def at(fid: int, v: int) -> cp_model.IntVar:
        if (fid, v) not in arrive:
            arrive[(fid, v)] = m.new_int_var(0, horizon, f"a{fid}_{v}")
        return arrive[(fid, v)]

    for f in sorted(p.flows, key=lambda f: f.after is not None):
        es = edges[f.id]
        ins: dict[int, list[Key]] = {}
        outs: dict[int, list[Key]] = {}
        for e in es:
            outs.setdefault(e[0], []).append(e)
            ins.setdefault(e[1], []).append(e)
        if f.kind in ("bcast", "unicast"):
            release = done[f.after] if f.after is not None else 0
            m.add(at(f.id, f.root) == release)
            for e in es:
                k = (f.id, e)
                m.add(s[k] >= at(f.id, e[0])).only_enforce_if(x[k])
                m.add(at(f.id, e[1]) == s[k] + dur[e]).only_enforce_if(x[k])
            targets = f.members
            for v in targets:
                if not fixed:
                    m.add_exactly_one(x[(f.id, e)] for e in ins.get(v, []))
                m.add(makespan >= at(f.id, v))
                m.add(done[f.id] >= at(f.id, v))
            if f.kind == "unicast" and not fixed:
                for v in set(ins) | set(outs):
                    if v in (f.root, f.members[0]):
                        continue
                    into = [x[(f.id, e)] for e in ins.get(v, [])]
                    m.add(sum(into) <= 1)
                    for e in outs.get(v, []):
                        m.add(x[(f.id, e)] <= sum(into))
        else:
            for v in f.members:
                if v == f.root:
                    continue
                if not fixed:
                    m.add_exactly_one(x[(f.id, e)] for e in outs.get(v, []))
            for e in es:
                k = (f.id, e)
                u, v = e
                m.add(s[k] >= at(f.id, u)).only_enforce_if(x[k])  # u's partial is ready
                if v == f.root:
                    m.add(done[f.id] >= s[k] + dur[e]).only_enforce_if(x[k])
                else:
                    m.add(at(f.id, v) >= s[k] + dur[e]).only_enforce_if(x[k])
            m.add(makespan >= done[f.id])

    # resources: total load bounds the makespan (all modes); no overlap (exact, polish)
    by_resource: dict[str, list[Key]] = {}
    for e in {e for es in edges.values() for e in es}:
        for r in p.resources[e]:
            by_resource.setdefault(r, []).append(e)
    users: dict[Key, list[tuple[int, Key]]] = {}
    for k in x:
        users.setdefault(k[1], []).append(k)
    covered = {e for r, es in by_resource.items() if not r.startswith("link") for e in es}
    for r, es in by_resource.items():
        if r.startswith("link") and es[0] in covered:
            continue
        m.add(sum(dur[e] * x[k] for e in es for k in users.get(e, [])) <= makespan)
        if mode != "relax":
            ivs = [iv for e in es for iv in intervals.get(e, [])]
            if len(ivs) > 1:
                m.add_no_overlap(ivs)

    if symmetry:
        for sigma, fmap in p.perms:
            for (fid, (u, v)), var in x.items():
                img = (fmap[fid], (sigma[u], sigma[v]))
                if img in x and img != (fid, (u, v)):
                    if not fixed:
                        m.add(x[img] == var)
                    m.add(s[img] == s[(fid, (u, v))])

    objective = makespan
    policy = p.sketch.switch_policy if p.sketch else None
    if policy and not fixed:
        switch_links = sorted({e for e in users if p.topo.links[e].kind == "switch"})
        used = {}
        for e in switch_links:
            used[e] = m.new_bool_var(f"used{e}")
            for k in users[e]:
                m.add_implication(x[k], used[e])
        weight = len(switch_links) + 1
        sign = 1 if policy == SwitchPolicy.UC_MIN else -1
        m.minimize(weight * makespan + sign * sum(used.values()))
    else:
        m.minimize(objective)

    if starts is not None:
        _hint(m, p, starts, horizon, x, s, arrive, done, makespan, fixed)
        if policy and not fixed:
            for e, var in used.items():
                m.add_hint(var, int(any((k in starts) for k in users[e])))

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.05, time_limit)
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    if fix_to_hint:
        solver.parameters.fix_variables_to_their_hinted_value = True
    status = solver.solve(m)
    name = solver.status_name(status)
    sol = Solution(name, float("inf"), solver.best_objective_bound * p.unit, time.perf_counter() - start, notes=notes)
    if starts is not None:
        sol.hint = horizon * p.unit
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        if starts is not None and not fix_to_hint and status != cp_model.INFEASIBLE:
            # no solution in time: the (feasible) warm start is the answer
            sol.status, sol.objective = "HINT", horizon * p.unit
            for fid, e in starts:
                sol.routes.setdefault(fid, []).append(e)
            sol.plan = units_plan(p, starts, mode)
        return sol
    sol.objective = solver.value(makespan) * p.unit
    if policy and not fixed:
        sol.bound = (
            solver.best_objective_bound / (len([e for e in users if p.topo.links[e].kind == "switch"]) + 1) * p.unit
        )
    for (fid, e), var in x.items():
        if solver.value(var):
            sol.routes.setdefault(fid, []).append(e)
    if mode != "relax":
        sends = []
        for (fid, e), var in x.items():
            if solver.value(var):
                t0 = solver.value(s[(fid, e)])
                sends.append(Send(fid, e[0], e[1], t0 * p.unit, (t0 + dur[e]) * p.unit))
        sol.plan = Plan(p.coll, p.flows, sends, p.chunk_bytes, p.topo, mode)
    return sol


def _hint(
    m: cp_model.CpModel,
    p: Problem,
    starts: dict[tuple[int, Key], int],
    horizon: int,
    x: dict,
    s: dict,
    arrive: dict,
    done: dict,
    makespan: cp_model.IntVar,
    fixed: bool,
) -> None:
    """Hint every variable of the model from integer `starts` (a complete solution)."""
    end = {k: t + p.dur[k[1]] for k, t in starts.items()}
    into: dict[tuple[int, int], list[int]] = {}
    for (fid, (_u, v)), t in end.items():
        into.setdefault((fid, v), []).append(t)
    at: dict[tuple[int, int], int] = {}
    fin: dict[int, int] = {}
    for f in sorted(p.flows, key=lambda f: f.after is not None):
        if f.kind in ("bcast", "unicast"):
            at[(f.id, f.root)] = fin[f.after] if f.after is not None else 0
            for (fid, v), ts in into.items():
                if fid == f.id:
                    at[(fid, v)] = max(ts)
            fin[f.id] = max((at.get((f.id, v), 0) for v in f.members), default=0)
        else:
            for (fid, v), ts in into.items():
                if fid == f.id and v != f.root:
                    at[(fid, v)] = max(ts)
            fin[f.id] = max(into.get((f.id, f.root), [0]))
    for k, var in x.items():
        if not fixed:
            m.add_hint(var, int(k in starts))
        m.add_hint(s[k], starts.get(k, 0))
    for k, var in arrive.items():
        m.add_hint(var, at.get(k, 0))
    for fid, var in done.items():
        m.add_hint(var, fin[fid])
    m.add_hint(makespan, horizon)
