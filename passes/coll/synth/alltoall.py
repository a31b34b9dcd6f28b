"""ALLTOALL routing as a multi-commodity-flow LP (HiGHS), rounded to chunk paths.

One commodity per (source, destination) pair; f[p, e] is the fraction of the pair's data on
link e. Flow conservation per pair and node; every link and port carries at most T
microseconds of traffic; minimise T (plus a tiny cost per use, so no flow wanders). The LP
optimum is a lower bound on the bandwidth time. Each pair's flow is decomposed into paths and
its chunks are assigned to paths one at a time, each to the path that keeps the most loaded
resource least loaded (the LP's split, in whole chunks).
"""

from __future__ import annotations

from collections import defaultdict

import highspy
import numpy as np

from .problem import Key, Problem


def route(p: Problem) -> tuple[dict[int, list[Key]], float]:
    """Routes (flow id -> links of its path) and the LP's bound T (us)."""
    by_pair: dict[tuple[int, int], list[int]] = defaultdict(list)
    for f in p.flows:
        by_pair[(f.root, f.members[0])].append(f.id)
    pairs = sorted(by_pair)
    cols: list[tuple[int, Key]] = []
    for k, pair in enumerate(pairs):
        for e in p.edges[by_pair[pair][0]]:
            cols.append((k, e))
    ncol = len(cols) + 1
    t_col = len(cols)
    per_pair = len(by_pair[pairs[0]])
    h = _quiet_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    eps = 1e-4
    costs = np.array([eps * p.cost[e] for _, e in cols] + [1.0])
    lower = np.zeros(ncol)
    upper = np.array([1.0] * len(cols) + [highspy.kHighsInf])
    h.addVars(ncol, lower, upper)
    h.changeColsCost(ncol, np.arange(ncol, dtype=np.int32), costs)
    rows_lo: list[float] = []
    rows_hi: list[float] = []
    starts: list[int] = []
    index: list[int] = []
    value: list[float] = []

    def row(entries: list[tuple[int, float]], lo: float, hi: float) -> None:
        starts.append(len(index))
        for c, v in entries:
            index.append(c)
            value.append(v)
        rows_lo.append(lo)
        rows_hi.append(hi)

    by_pair_node: dict[tuple[int, int], list[tuple[int, float]]] = defaultdict(list)
    for c, (k, (u, v)) in enumerate(cols):
        by_pair_node[(k, u)].append((c, 1.0))
        by_pair_node[(k, v)].append((c, -1.0))
    for (k, node), entries in by_pair_node.items():
        s, d = pairs[k]
        rhs = 1.0 if node == s else -1.0 if node == d else 0.0
        row(entries, rhs, rhs)
    for k, (s, d) in enumerate(pairs):
        if (k, s) not in by_pair_node or (k, d) not in by_pair_node:
            raise AssertionError(f"alltoall LP: pair {s}->{d} has no candidate links")
    by_res: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for c, (_k, e) in enumerate(cols):
        for r in p.resources[e]:
            by_res[r].append((c, per_pair * p.cost[e]))
    for entries in by_res.values():
        row(entries + [(t_col, -1.0)], -highspy.kHighsInf, 0.0)
    h.addRows(
        len(rows_lo),
        np.array(rows_lo),
        np.array(rows_hi),
        len(index),
        np.array(starts, dtype=np.int32),
        np.array(index, dtype=np.int32),
        np.array(value),
    )
    h.run()
    x = np.array(h.getSolution().col_value)
    bound = float(x[t_col])
    # decompose each pair's flow into weighted paths
    flow_on: dict[int, dict[Key, float]] = defaultdict(dict)
    for c, (k, e) in enumerate(cols):
        if x[c] > 1e-7:
            flow_on[k][e] = float(x[c])
    load: dict[str, float] = defaultdict(float)
    routes: dict[int, list[Key]] = {}
    order = sorted(range(len(pairs)), key=lambda k: -len(flow_on[k]))
    for k in order:
        s, d = pairs[k]
        paths = _paths(flow_on[k], s, d)
        for fid in by_pair[pairs[k]]:
            best = min(
                paths, key=lambda path: (max(load[r] + p.cost[e] for e in path[0] for r in p.resources[e]), -path[1])
            )
            routes[fid] = best[0]
            for e in best[0]:
                for r in p.resources[e]:
                    load[r] += p.cost[e]
    return routes, bound


def _quiet_highs() -> highspy.Highs:
    """HiGHS prints a banner on stdout when constructed; keep tool output clean."""
    import os
    import sys

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    return h


def _paths(flow: dict[Key, float], s: int, d: int) -> list[tuple[list[Key], float]]:
    flow = dict(flow)
    out = []
    while True:
        path, node, seen = [], s, {s}
        while node != d:
            nxt = max(
                ((e, v) for e, v in flow.items() if e[0] == node and v > 1e-7 and e[1] not in seen),
                default=None,
                key=lambda t: t[1],
            )
            if nxt is None:
                break
            path.append(nxt[0])
            node = nxt[0][1]
            seen.add(node)
        if node != d or not path:
            break
        amount = min(flow[e] for e in path)
        for e in path:
            flow[e] -= amount
        out.append((path, amount))
        if sum(a for _, a in out) > 1 - 1e-6:
            break
    return out
