"""Greedy ordering: list-schedule fixed routes on the links and ports (TACCL's stage 2).

Every (flow, link) use of the routes is a task; a broadcast hop waits for the hop that
brought the chunk, a reduction hop for every partial sent to its sender, ALLREDUCE's
broadcast for its reduction. Repeatedly start the task that can start earliest (ties: the
longest remaining path first, TACCL's main key), holding its link and ports. The result is
a feasible plan in float microseconds: the decomposition's answer and the exact model's
warm start.
"""

from __future__ import annotations

import heapq
from collections import defaultdict

from tessel.dialects.coll.plan import Plan, Send
from tessel.ir.diagnostics import TesselError

from .problem import Key, Problem

Task = tuple[int, Key]


def dependencies(p: Problem, routes: dict[int, list[Key]]) -> tuple[list[tuple[int, Key]], list[list[int]]]:
    """The tasks of `routes` (one per (flow, link) use) and, for each, the tasks it waits for."""
    flows = {f.id: f for f in p.flows}
    tasks: list[tuple[int, Key]] = [(fid, e) for fid, es in routes.items() for e in es]
    preds: list[list[int]] = [[] for _ in tasks]
    by_flow_into: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (fid, (_u, v)) in enumerate(tasks):
        by_flow_into[(fid, v)].append(i)
    for i, (fid, (u, _v)) in enumerate(tasks):
        f = flows[fid]
        preds[i].extend(by_flow_into.get((fid, u), []))
        if f.kind == "bcast" and f.after is not None and u == f.root:
            preds[i].extend(completes_of(routes, flows, f.after, by_flow_into))
    return tasks, preds


def list_schedule(
    p: Problem,
    routes: dict[int, list[Key]],
    priority: dict[Task, int] | None = None,
    messages: dict[Task, int] | None = None,
) -> Plan:
    """Start times for `routes`; `priority` (lower first) breaks ties between tasks that can start
    at the same time before the longest-remaining-path rule does (a constructed order, such as
    the NIC pipeline's rounds). `messages` puts tasks on one link into one message (same id:
    one send, paying alpha once): the message starts when all of its chunks are ready and they
    all arrive at its end, which the plan's `group`s then tell the lowering."""
    tasks, preds = dependencies(p, routes)
    # one schedulable unit per message: member i is scheduled as its leader lead[i]
    lead = list(range(len(tasks)))
    size = [1] * len(tasks)
    if messages:
        first: dict[int, int] = {}
        for i, t in enumerate(tasks):
            if t in messages:
                lead[i] = first.setdefault(messages[t], i)
                size[lead[i]] += lead[i] != i
    leaders = [i for i in range(len(tasks)) if lead[i] == i]
    unit_preds: list[set[int]] = [set() for _ in tasks]
    for i, ps in enumerate(preds):
        unit_preds[lead[i]].update(lead[q] for q in ps if lead[q] != lead[i])
    succs: list[list[int]] = [[] for _ in tasks]
    for i in leaders:
        for q in unit_preds[i]:
            succs[q].append(i)
    cost = [
        p.cost[e] if size[i] == 1 else p.topo.links[e].cost(size[i] * p.chunk_bytes) for i, (_, e) in enumerate(tasks)
    ]
    # longest remaining path (us) from each unit to the end
    tail = [0.0] * len(tasks)
    order = _topo([sorted(unit_preds[i]) for i in range(len(tasks))], succs)
    for i in reversed(order):
        if lead[i] == i:
            tail[i] = cost[i] + max((tail[j] for j in succs[i]), default=0.0)
    res = [p.resources[e] for _, e in tasks]
    free: dict[str, float] = defaultdict(float)
    waiting = [len(unit_preds[i]) for i in range(len(tasks))]
    ready = [0.0] * len(tasks)
    orbit = _orbits(p, tasks)
    rank = [priority.get(t, 0) for t in tasks] if priority else [0] * len(tasks)
    heap = [(0.0, rank[i], -tail[i], orbit[i], i) for i in leaders if waiting[i] == 0]
    heapq.heapify(heap)
    start = [0.0] * len(tasks)
    done = 0
    while heap:
        key, _, neg, o, i = heapq.heappop(heap)
        est = max(ready[i], max(free[r] for r in res[i]))
        if est > key + 1e-9:
            heapq.heappush(heap, (est, rank[i], neg, o, i))
            continue
        start[i] = est
        done += 1
        end = est + cost[i]
        for r in res[i]:
            free[r] = end
        for j in succs[i]:
            ready[j] = max(ready[j], end)
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(heap, (ready[j], rank[j], -tail[j], orbit[j], j))
    if done != len(leaders):
        raise TesselError("list schedule: a merged message waits for a chunk that waits for the message")
    group = {lead_i: g for g, lead_i in enumerate(i for i in leaders if size[i] > 1)}
    sends = [
        Send(fid, e[0], e[1], start[lead[i]], start[lead[i]] + cost[lead[i]], group.get(lead[i], -1))
        for i, (fid, e) in enumerate(tasks)
    ]
    plan = Plan(p.coll, p.flows, sends, p.chunk_bytes, p.topo, "greedy")
    plan.groups = len(group)
    return plan


def _orbits(p: Problem, tasks: list[Task]) -> list[int]:
    """Each task's orbit under the problem's symmetries (the smallest index in it).

    Ties broken by orbit before index order symmetric tasks the same way on every resource,
    so symmetric routes get a symmetric schedule, as the CP-SAT models' symmetry ties need.
    """
    index = {t: i for i, t in enumerate(tasks)}
    parent = list(range(len(tasks)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for sigma, fmap in p.perms:
        for i, (fid, (u, v)) in enumerate(tasks):
            j = index.get((fmap[fid], (sigma[u], sigma[v])))
            if j is not None:
                a, b = find(i), find(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return [find(i) for i in range(len(tasks))]


def in_units(p: Problem, plan: Plan) -> dict[Task, int]:
    """Integer start times (units of `p.unit`) for `plan`'s sends, in the plan's own order.

    Rounding each float start on its own can make two transfers on a port overlap by a unit
    or start a hop before the previous one ends. Instead, take the transfers in the order the
    plan starts them (a dependency always before its dependents) and start each as early as
    the model allows: after the tasks it waits for, with the model's integer durations, and
    after the previous transfer on each of its link and ports. The result keeps the plan's
    order on every resource and is feasible for the exact and polish models by construction
    (`check_units` verifies it); for a plan already in integer units it moves nothing later.
    """
    order = {(s.flow, (s.src, s.dst)): (s.start, s.end) for s in plan.sends}
    routes: dict[int, list[Key]] = defaultdict(list)
    for fid, e in order:
        routes[fid].append(e)
    tasks, preds = dependencies(p, dict(routes))
    succs: list[list[int]] = [[] for _ in tasks]
    for i, ps in enumerate(preds):
        for q in ps:
            succs[q].append(i)
    waiting = [len(ps) for ps in preds]
    key = [(order[t][0], order[t][1], t[0], t[1]) for t in tasks]
    heap = [(key[i], i) for i in range(len(tasks)) if waiting[i] == 0]
    heapq.heapify(heap)
    ready = [0] * len(tasks)
    free: dict[str, int] = defaultdict(int)
    out: dict[Task, int] = {}
    while heap:
        _, i = heapq.heappop(heap)
        fid, e = tasks[i]
        res = p.resources[e]
        t0 = max([ready[i], *(free[r] for r in res)])
        end = t0 + p.dur[e]
        out[(fid, e)] = t0
        for r in res:
            free[r] = end
        for j in succs[i]:
            ready[j] = max(ready[j], end)
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(heap, (key[j], j))
    if len(out) != len(tasks):
        raise ValueError("plan has a cyclic dependency")
    return out


def units_plan(p: Problem, starts: dict[Task, int], note: str) -> Plan:
    """The plan of integer `starts`, in microseconds (start * unit)."""
    sends = [Send(fid, e[0], e[1], t * p.unit, (t + p.dur[e]) * p.unit) for (fid, e), t in starts.items()]
    return Plan(p.coll, p.flows, sends, p.chunk_bytes, p.topo, note)


def units_makespan(p: Problem, starts: dict[Task, int]) -> int:
    return max((t + p.dur[e] for (_, e), t in starts.items()), default=0)


def check_units(p: Problem, starts: dict[Task, int], symmetry: bool = False) -> list[str]:
    """Why integer `starts` violate the CP-SAT models' constraints (empty: feasible): a member
    that does not receive (broadcast, unicast) or send its partial (reduction) exactly once, a
    task before the end of one it waits for, two tasks overlapping on a link or port, and with
    `symmetry` a (flow, link) whose symmetric image is unused or starts at another time."""
    errors: list[str] = []
    routes: dict[int, list[Key]] = defaultdict(list)
    for fid, e in starts:
        routes[fid].append(e)
    for f in p.flows:
        es = routes.get(f.id, [])
        if f.kind == "reduce":  # every other member sends its partial exactly once
            counts = {v: sum(1 for e in es if e[0] == v) for v in f.members if v != f.root}
        else:  # every member receives exactly once
            counts = {v: sum(1 for e in es if e[1] == v) for v in f.members}
        for v, n in counts.items():
            if n != 1:
                errors.append(f"flow {f.id}: rank {v} {'sends' if f.kind == 'reduce' else 'receives'} {n} times")
    tasks, preds = dependencies(p, dict(routes))
    for i, (fid, e) in enumerate(tasks):
        for q in preds[i]:
            g, d = tasks[q]
            if starts[(fid, e)] < starts[(g, d)] + p.dur[d]:
                errors.append(
                    f"flow {fid} {e} starts at {starts[(fid, e)]} before flow {g} {d} ends at {starts[(g, d)] + p.dur[d]}"
                )
    by_res: dict[str, list[tuple[int, int, Task]]] = defaultdict(list)
    for (fid, e), t in starts.items():
        for r in p.resources[e]:
            by_res[r].append((t, t + p.dur[e], (fid, e)))
    for r, ivs in by_res.items():
        ivs.sort()
        for a, b in zip(ivs, ivs[1:]):
            if b[0] < a[1]:
                errors.append(f"{r}: flow {b[2][0]} {b[2][1]} at {b[0]} overlaps flow {a[2][0]} {a[2][1]} until {a[1]}")
    if symmetry:
        for sigma, fmap in p.perms:
            for (fid, (u, v)), t in starts.items():
                img = (fmap[fid], (sigma[u], sigma[v]))
                if img != (fid, (u, v)) and starts.get(img) != t:
                    errors.append(
                        f"not symmetric: flow {fid} {(u, v)} at {t}, its image flow {img[0]} {img[1]} at {starts.get(img)}"
                    )
    return errors


def completes_of(routes: dict[int, list[Key]], flows: dict, fid: int, into: dict) -> list[int]:
    root = flows[fid].root
    return list(into.get((fid, root), []))


def _topo(preds: list[list[int]], succs: list[list[int]]) -> list[int]:
    indeg = [len(ps) for ps in preds]
    stack = [i for i, d in enumerate(indeg) if d == 0]
    out = []
    while stack:
        i = stack.pop()
        out.append(i)
        for j in succs[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                stack.append(j)
    return out


def shortest_routes(p: Problem) -> dict[int, list[Key]]:
    """Each member's cheapest candidate edge toward (or from) the flow's root: a feasible tree.

    Among equally cheap paths a member takes the edge whose busiest link or port would be the
    least busy after it (over all flows so far), so that this fallback for a routing relaxation
    out of time spreads the chunks over a machine's NICs and ports instead of sending them all
    through the first, and prefers a cheap hop inside a node to a second trip over a NIC."""
    routes: dict[int, list[Key]] = {}
    load: dict[str, float] = defaultdict(float)
    for f in p.flows:
        es = p.edges[f.id]
        if f.kind == "unicast":
            dst = f.members[0]
            best: dict[int, tuple[float, Key | None]] = {f.root: (0.0, None)}
            for _ in range(len(es)):  # Bellman-Ford on the (acyclic) candidate edges
                for u, v in es:
                    if u in best and best[u][0] + p.cost[(u, v)] < best.get(v, (float("inf"), None))[0]:
                        best[v] = (best[u][0] + p.cost[(u, v)], (u, v))
            path, node = [], dst
            while node != f.root:
                e = best[node][1]
                assert e is not None
                path.append(e)
                node = e[0]
            routes[f.id] = path[::-1]
            continue
        dist: dict[int, float] = {f.root: 0.0}
        for _ in range(len(es)):
            changed = False
            for u, v in es:
                a, b = (u, v) if f.kind == "bcast" else (v, u)  # walk away from the root
                if a in dist and dist[a] + p.cost[(u, v)] < dist.get(b, float("inf")) - 1e-12:
                    dist[b] = dist[a] + p.cost[(u, v)]
                    changed = True
            if not changed:
                break
        route = []
        for m in f.members:
            if m == f.root:
                continue
            # the member's edges on a cheapest path from (or to) the root: the least loaded one
            ties = [
                (u, v)
                for u, v in es
                if (v if f.kind == "bcast" else u) == m
                and (u if f.kind == "bcast" else v) in dist
                and dist[u if f.kind == "bcast" else v] + p.cost[(u, v)] <= dist[m] + 1e-9
            ]
            e = min(ties, key=lambda e: (max(load[r] for r in p.resources[e]) + p.cost[e], e))
            for r in p.resources[e]:
                load[r] += p.cost[e]
            route.append(e)
        routes[f.id] = route
    return routes
