"""The step graph of an algorithm: who waits for whom.

A step waits for the previous step of its threadblock, for its `deps`, and a receiving step
for the matching send (the k-th send on connection (a -> b, channel) pairs with the k-th
receive on it). The interpreter, the simulator, the gloo executor and the verifier all walk
this graph; a cycle (a deadlock) or an unmatched send is a `TesselError`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tessel.ir.diagnostics import TesselError

from .model import Algorithm, Step

RECEIVES = ("recv", "recv_reduce_copy")

Node = tuple[int, int, int]  # (gpu, threadblock, step)


@dataclass
class StepGraph:
    alg: Algorithm
    nodes: list[Node]
    preds: dict[Node, list[Node]]
    match: dict[Node, Node]  # send -> its receive, and receive -> its send
    order: list[Node]  # a topological order

    def step(self, node: Node) -> Step:
        g, t, s = node
        return self.alg.gpus[g].tbs[t].steps[s]

    def peer(self, node: Node) -> int:
        g, t, _ = node
        tb = self.alg.gpus[g].tbs[t]
        return tb.send if self.step(node).op == "send" else tb.recv


def build(alg: Algorithm) -> StepGraph:
    for i, g in enumerate(alg.gpus):
        if g.rank != i:
            raise TesselError(f"algorithm {alg.name}: GPU programs must be ranks 0..{len(alg.gpus) - 1} in order")
    nodes: list[Node] = []
    preds: dict[Node, list[Node]] = {}
    sends: dict[tuple[int, int, int], list[Node]] = defaultdict(list)
    recvs: dict[tuple[int, int, int], list[Node]] = defaultdict(list)
    for g in alg.gpus:
        for t, tb in enumerate(g.tbs):
            for s, step in enumerate(tb.steps):
                node = (g.rank, t, s)
                nodes.append(node)
                p = [(g.rank, t, s - 1)] if s else []
                for dt, ds in step.deps:
                    if not (0 <= dt < len(g.tbs) and 0 <= ds < len(g.tbs[dt].steps)):
                        raise TesselError(
                            f"algorithm {alg.name}: GPU {g.rank} tb {t} step {s} depends on missing step ({dt}, {ds})"
                        )
                    p.append((g.rank, dt, ds))
                preds[node] = p
                if step.op == "send":
                    sends[(g.rank, tb.send, tb.channel)].append(node)
                elif step.op in RECEIVES:
                    recvs[(tb.recv, g.rank, tb.channel)].append(node)
    match: dict[Node, Node] = {}
    for key in set(sends) | set(recvs):
        a, b = sends.get(key, []), recvs.get(key, [])
        if len(a) != len(b):
            raise TesselError(
                f"algorithm {alg.name}: GPU {key[0]} sends {len(a)} messages to GPU {key[1]} on channel {key[2]}, which receives {len(b)}"
            )
        for x, y in zip(a, b):
            match[x], match[y] = y, x
            preds[y].append(x)
    # Kahn's algorithm; what is left over waits in a cycle
    indeg = {n: len(p) for n, p in preds.items()}
    succs: dict[Node, list[Node]] = defaultdict(list)
    for n, p in preds.items():
        for q in p:
            succs[q].append(n)
    ready = [n for n in nodes if indeg[n] == 0]
    order: list[Node] = []
    while ready:
        n = ready.pop()
        order.append(n)
        for m in succs[n]:
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
    if len(order) != len(nodes):
        stuck = min(n for n in nodes if indeg[n] > 0)
        raise TesselError(
            f"algorithm {alg.name} deadlocks: GPU {stuck[0]} tb {stuck[1]} step {stuck[2]} waits in a cycle of dependencies"
        )
    return StepGraph(alg, nodes, preds, match, order)
