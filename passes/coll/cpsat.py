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

Broadcast: every member receives exactly once, a send leaves after its chunk arrived.
Reduction: every non-root member sends its partial exactly once, after all partials sent
to it arrived; the root's last arrival completes the flow. Unicast: a path. ALLREDUCE's
broadcast of a chunk starts when its reduction has completed at the root.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from tessel.targets.nccl.plan import Plan, Send

from .problem import Key, Problem


@dataclass
class Solution:
    status: str
    objective: float  # us
    bound: float  # us
    wall: float
    routes: dict[int, list[Key]] = field(default_factory=dict)
    plan: Plan | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("OPTIMAL", "FEASIBLE")


def solve(p: Problem, mode: str, *, routes: dict[int, list[Key]] | None = None, hint: Plan | None = None,
          time_limit: float = 10.0, workers: int = 2, seed: int = 0, symmetry: bool = True) -> Solution:
    assert mode in ("relax", "exact", "polish")
    start = time.perf_counter()
    m = cp_model.CpModel()
    dur = p.dur
    edges = routes if routes is not None else p.edges
    if hint is not None:
        horizon = int(hint.makespan / p.unit * 1.25) + 10 * max(dur.values())
    else:
        horizon = sum(dur[e] for es in edges.values() for e in es) + 1
    flows = {f.id: f for f in p.flows}
    x: dict[tuple[int, Key], cp_model.IntVar] = {}
    s: dict[tuple[int, Key], cp_model.IntVar] = {}
    intervals: dict[Key, list] = {}
    done: dict[int, cp_model.IntVar] = {}
    arrive: dict[tuple[int, int], cp_model.IntVar] = {}
    makespan = m.NewIntVar(0, horizon, "makespan")
    fixed = routes is not None

    for f in p.flows:
        for e in edges[f.id]:
            k = (f.id, e)
            x[k] = m.NewConstant(1) if fixed else m.NewBoolVar(f"x{f.id}_{e[0]}_{e[1]}")
            s[k] = m.NewIntVar(0, horizon, f"s{f.id}_{e[0]}_{e[1]}")
            if mode != "relax":
                if fixed:
                    iv = m.NewFixedSizeIntervalVar(s[k], dur[e], f"i{f.id}_{e[0]}_{e[1]}")
                else:
                    iv = m.NewOptionalFixedSizeIntervalVar(s[k], dur[e], x[k], f"i{f.id}_{e[0]}_{e[1]}")
                intervals.setdefault(e, []).append(iv)
        done[f.id] = m.NewIntVar(0, horizon, f"done{f.id}")

    def at(fid: int, v: int) -> cp_model.IntVar:
        if (fid, v) not in arrive:
            arrive[(fid, v)] = m.NewIntVar(0, horizon, f"a{fid}_{v}")
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
            m.Add(at(f.id, f.root) == release)
            for e in es:
                k = (f.id, e)
                m.Add(s[k] >= at(f.id, e[0])).OnlyEnforceIf(x[k])
                m.Add(at(f.id, e[1]) == s[k] + dur[e]).OnlyEnforceIf(x[k])
            targets = f.members
            for v in targets:
                if not fixed:
                    m.AddExactlyOne(x[(f.id, e)] for e in ins.get(v, []))
                m.Add(makespan >= at(f.id, v))
                m.Add(done[f.id] >= at(f.id, v))
            if f.kind == "unicast" and not fixed:
                for v in set(ins) | set(outs):
                    if v in (f.root, f.members[0]):
                        continue
                    into = [x[(f.id, e)] for e in ins.get(v, [])]
                    m.Add(sum(into) <= 1)
                    for e in outs.get(v, []):
                        m.Add(x[(f.id, e)] <= sum(into))
        else:
            for v in f.members:
                if v == f.root:
                    continue
                if not fixed:
                    m.AddExactlyOne(x[(f.id, e)] for e in outs.get(v, []))
            for e in es:
                k = (f.id, e)
                u, v = e
                m.Add(s[k] >= at(f.id, u)).OnlyEnforceIf(x[k])  # u's partial is ready
                if v == f.root:
                    m.Add(done[f.id] >= s[k] + dur[e]).OnlyEnforceIf(x[k])
                else:
                    m.Add(at(f.id, v) >= s[k] + dur[e]).OnlyEnforceIf(x[k])
            m.Add(makespan >= done[f.id])

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
        m.Add(sum(dur[e] * x[k] for e in es for k in users.get(e, [])) <= makespan)
        if mode != "relax":
            ivs = [iv for e in es for iv in intervals.get(e, [])]
            if len(ivs) > 1:
                m.AddNoOverlap(ivs)

    if symmetry:
        for sigma, fmap in p.perms:
            for (fid, (u, v)), var in x.items():
                img = (fmap[fid], (sigma[u], sigma[v]))
                if img in x and img != (fid, (u, v)):
                    if not fixed:
                        m.Add(x[img] == var)
                    m.Add(s[img] == s[(fid, (u, v))])

    objective = makespan
    policy = p.sketch.switch_policy if p.sketch else None
    if policy and not fixed:
        switch_links = sorted({e for e in users if p.topo.links[e].kind == "switch"})
        used = {}
        for e in switch_links:
            used[e] = m.NewBoolVar(f"used{e}")
            for k in users[e]:
                m.AddImplication(x[k], used[e])
        weight = len(switch_links) + 1
        sign = 1 if policy == "uc-min" else -1
        m.Minimize(weight * makespan + sign * sum(used.values()))
    else:
        m.Minimize(objective)

    if hint is not None:
        chosen = {(snd.flow, (snd.src, snd.dst)): snd for snd in hint.sends}
        for k, var in x.items():
            snd = chosen.get(k)
            if not fixed:
                m.AddHint(var, 1 if snd is not None else 0)
            if snd is not None:
                m.AddHint(s[k], min(horizon, int(round(snd.start / p.unit))))

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.05, time_limit)
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    status = solver.Solve(m)
    name = solver.StatusName(status)
    sol = Solution(name, float("inf"), solver.BestObjectiveBound() * p.unit, time.perf_counter() - start)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return sol
    sol.objective = solver.Value(makespan) * p.unit
    if policy and not fixed:
        sol.bound = solver.BestObjectiveBound() / (len([e for e in users if p.topo.links[e].kind == "switch"]) + 1) * p.unit
    for (fid, e), var in x.items():
        if solver.Value(var):
            sol.routes.setdefault(fid, []).append(e)
    if mode != "relax":
        sends = []
        for (fid, e), var in x.items():
            if solver.Value(var):
                t0 = solver.Value(s[(fid, e)])
                sends.append(Send(fid, e[0], e[1], t0 * p.unit, (t0 + dur[e]) * p.unit))
        sol.plan = Plan(p.coll, p.flows, sends, p.chunk_bytes, p.topo, mode)
    return sol
