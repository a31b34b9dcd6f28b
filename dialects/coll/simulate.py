"""The alpha-beta discrete-event simulator: an algorithm's time on a topology, with contention.

Each send becomes a transfer when its threadblock reaches it and its dependencies are done.
A transfer of `count` chunks over link (a, b) takes `alpha + beta * bytes` and holds the link
and every port the link belongs to (NIC transmit/receive sides, switch out/in ports) for that
long; a transfer starts only when all of them are free, earlier requests first (work
conserving: a later request whose resources are free may go ahead). Receives, copies and
reductions take no time. The same simulator times Tessel's algorithms and NCCL's ring/tree
(targets/nccl/baselines.py), so the comparison is under one model.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass, field

from tessel.ir.diagnostics import TesselError

from .model import Algorithm, Topology
from .steps import Node, build


@dataclass
class Transfer:
    src: int
    dst: int
    chunks: int
    request: float
    start: float
    end: float


@dataclass
class SimResult:
    time: float
    transfers: list[Transfer] = field(default_factory=list)
    busy: dict[str, float] = field(default_factory=dict)  # resource -> total busy time

    def bottleneck(self) -> tuple[str, float]:
        if not self.busy:
            return ("none", 0.0)
        name = max(self.busy, key=lambda k: self.busy[k])
        return name, self.busy[name]


def simulate(alg: Algorithm, topo: Topology, chunk_bytes: float) -> SimResult:
    graph = build(alg)
    if topo.gpus != alg.collective.ranks:
        raise TesselError(
            f"algorithm {alg.name} is for {alg.collective.ranks} ranks, topology {topo.name} has {topo.gpus} GPUs"
        )
    succs: dict[Node, list[Node]] = defaultdict(list)
    for n, ps in graph.preds.items():
        for p in ps:
            succs[p].append(n)
    waiting = {n: len(ps) for n, ps in graph.preds.items()}
    ready_at: dict[Node, float] = defaultdict(float)
    finish: dict[Node, float] = {}
    # (time, sequence, kind, step, request id): "request" a send asks for its link and ports,
    # "end" request id's transfer is done, "finish" a step that takes no time is done
    events: list[tuple[float, int, str, Node, int]] = []
    seq = 0

    def push(t: float, kind: str, node: Node, rid: int = -1) -> None:
        nonlocal seq
        heapq.heappush(events, (t, seq, kind, node, rid))
        seq += 1

    def become_ready(n: Node) -> None:
        t = ready_at[n]
        push(t, "request" if graph.step(n).op == "send" else "finish", n)

    for n in graph.nodes:
        if waiting[n] == 0:
            become_ready(n)

    free: dict[str, bool] = defaultdict(lambda: True)
    pending: dict[str, list[int]] = defaultdict(list)
    requests: dict[int, tuple[Node, tuple[str, ...], float, float]] = {}  # id -> node, resources, duration, requested
    transfers: list[Transfer] = []
    busy: dict[str, float] = defaultdict(float)

    def try_start(rid: int, t: float) -> bool:
        node, res, dur, asked = requests[rid]
        if not all(free[r] for r in res):
            return False
        for r in res:
            free[r] = False
            busy[r] += dur
            pending[r].remove(rid)
        g = node[0]
        peer = graph.peer(node)
        transfers.append(Transfer(g, peer, graph.step(node).count, asked, t, t + dur))
        push(t + dur, "end", node, rid)
        return True

    rid_next = 0
    while events:
        t, _, kind, node, done = heapq.heappop(events)
        if kind == "request":
            g = node[0]
            peer = graph.peer(node)
            link = topo.links.get((g, peer))
            if link is None:
                raise TesselError(
                    f"algorithm {alg.name}: GPU {g} sends to GPU {peer}, but topology {topo.name} has no link {g} -> {peer}"
                )
            res = topo.resources[(g, peer)]
            dur = link.cost(graph.step(node).count * chunk_bytes)
            rid = rid_next
            rid_next += 1
            requests[rid] = (node, res, dur, t)
            for r in res:
                pending[r].append(rid)
            try_start(rid, t)
            continue
        if kind == "end":
            _, res, _, _ = requests[done]
            for r in res:
                free[r] = True
            candidates = sorted({x for r in res for x in pending[r]})
            for other in candidates:
                try_start(other, t)
        n = node
        finish[n] = t
        for m in succs[n]:
            ready_at[m] = max(ready_at[m], t)
            waiting[m] -= 1
            if waiting[m] == 0:
                become_ready(m)
    if len(finish) != len(graph.nodes):  # pragma: no cover - build() rejects cycles
        raise TesselError(f"algorithm {alg.name}: simulation stalled")
    return SimResult(max(finish.values(), default=0.0), transfers, dict(busy))
