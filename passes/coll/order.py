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

from tessel.targets.nccl.plan import Plan, Send

from .problem import Key, Problem


def list_schedule(p: Problem, routes: dict[int, list[Key]]) -> Plan:
    flows = {f.id: f for f in p.flows}
    tasks: list[tuple[int, Key]] = [(fid, e) for fid, es in routes.items() for e in es]
    index = {t: i for i, t in enumerate(tasks)}
    preds: list[list[int]] = [[] for _ in tasks]
    by_flow_into: dict[tuple[int, int], list[int]] = defaultdict(list)
    by_flow_from: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (fid, (u, v)) in enumerate(tasks):
        by_flow_into[(fid, v)].append(i)
        by_flow_from[(fid, u)].append(i)
    completes: dict[int, list[int]] = defaultdict(list)  # flow -> tasks whose end completes it
    for i, (fid, (u, v)) in enumerate(tasks):
        f = flows[fid]
        preds[i].extend(by_flow_into.get((fid, u), []))
        if f.kind == "reduce" and v == f.root:
            completes[fid].append(i)
        if f.kind == "bcast" and f.after is not None and u == f.root:
            preds[i].extend(completes_of(routes, flows, f.after, by_flow_into))
    succs: list[list[int]] = [[] for _ in tasks]
    for i, ps in enumerate(preds):
        for q in ps:
            succs[q].append(i)
    cost = [p.cost[e] for _, e in tasks]
    # longest remaining path (us) from each task to the end
    tail = [0.0] * len(tasks)
    for i in reversed(_topo(preds, succs)):
        tail[i] = cost[i] + max((tail[j] for j in succs[i]), default=0.0)
    res = [p.resources[e] for _, e in tasks]
    free: dict[str, float] = defaultdict(float)
    waiting = [len(ps) for ps in preds]
    ready = [0.0] * len(tasks)
    heap = [(0.0, -tail[i], i) for i in range(len(tasks)) if waiting[i] == 0]
    heapq.heapify(heap)
    start = [0.0] * len(tasks)
    while heap:
        key, neg, i = heapq.heappop(heap)
        est = max(ready[i], max(free[r] for r in res[i]))
        if est > key + 1e-9:
            heapq.heappush(heap, (est, neg, i))
            continue
        start[i] = est
        end = est + cost[i]
        for r in res[i]:
            free[r] = end
        for j in succs[i]:
            ready[j] = max(ready[j], end)
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(heap, (ready[j], -tail[j], j))
    sends = [Send(fid, e[0], e[1], start[i], start[i] + cost[i]) for i, (fid, e) in enumerate(tasks)]
    return Plan(p.coll, p.flows, sends, p.chunk_bytes, p.topo, "greedy")


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
    """Each member's cheapest candidate edge toward (or from) the flow's root: a feasible tree."""
    routes: dict[int, list[Key]] = {}
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
        chosen: dict[int, Key] = {}
        for _ in range(len(es)):
            changed = False
            for u, v in es:
                a, b = (u, v) if f.kind == "bcast" else (v, u)  # walk away from the root
                if a in dist and dist[a] + p.cost[(u, v)] < dist.get(b, float("inf")) - 1e-12:
                    dist[b] = dist[a] + p.cost[(u, v)]
                    chosen[b] = (u, v)
                    changed = True
            if not changed:
                break
        routes[f.id] = [chosen[m] for m in f.members if m != f.root]
    return routes
