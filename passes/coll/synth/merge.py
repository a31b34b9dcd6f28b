"""Chunk merging on high-latency links: send several chunks as one message, paying alpha once.

On an IB link a 1 KB chunk costs 2.6 us of latency and 0.1 us of bandwidth, so eight chunks
sent one by one cost eight alphas; merged, one. TACCL decides this in its stage-3 MILP
(`is_together`); here the candidates are windows of consecutive sends on each link whose
alpha is at least `min_alpha_share` of a chunk's cost (merged sends must be contiguous in
the buffers at both ends; plan.lower splits what is not), and the simulator picks the best
window, including no merging at all.
"""

from __future__ import annotations

from collections import defaultdict

from tessel.dialects.coll.model import Algorithm
from tessel.dialects.coll.plan import Plan, lower
from tessel.dialects.coll.simulate import simulate
from tessel.ir.diagnostics import TesselError

WINDOWS = (1, 2, 4, 8, 16, 1 << 30)
MIN_ALPHA_SHARE = 0.2  # a link is latency-bound when alpha is this share of a chunk's cost


def with_windows(plan: Plan, window: int, min_alpha_share: float = MIN_ALPHA_SHARE) -> Plan:
    """A copy of `plan` whose sends on latency-bound links are grouped `window` at a time."""
    out = plan.copy()
    if window <= 1:
        return out
    per_link: dict[tuple[int, int], list] = defaultdict(list)
    for s in out.sends:
        link = plan.topology.links[(s.src, s.dst)]
        if link.alpha >= min_alpha_share * link.cost(plan.chunk_bytes):
            per_link[(s.src, s.dst)].append(s)
    group = 0
    for sends in per_link.values():
        sends.sort(key=lambda s: (s.start, s.flow))
        for i in range(0, len(sends), window):
            for s in sends[i : i + window]:
                s.group = group
            group += 1
    out.groups = group
    out.note = f"{plan.note}, merge {'all' if window >= 1 << 30 else window}"
    return out


def best_merge(plan: Plan, name: str) -> tuple[Algorithm, Plan, float, dict[str, float]]:
    """Lower and simulate every window; return the fastest (algorithm, plan, time, all times)."""
    best = None
    times: dict[str, float] = {}
    for w in WINDOWS:
        candidate = with_windows(plan, w)
        if w > 1 and candidate.groups == 0:
            break  # no latency-bound link: nothing to merge
        alg = lower(candidate, name)
        try:
            t = simulate(alg, plan.topology, plan.chunk_bytes).time
        except TesselError:
            if w == 1:
                raise
            continue  # this window makes a message wait for data that waits for it: skip
        times["all" if w >= 1 << 30 else str(w)] = t
        if best is None or t < best[2] - 1e-9:
            best = (alg, candidate, t)
    assert best is not None
    return best[0], best[1], best[2], times
