"""Prove that an algorithm implements its collective (the logic of the coll-verify pass).

Symbolic chunk propagation (TACCL's `check_implements`, over buffers rather than chunk
sets): every input slot i[k] of rank r starts holding {(r, k)}; steps run in a topological
order of the step graph; a send of a slot nothing was written to, a reduction that would
count a contribution twice, and an output slot whose contents differ from the collective's
postcondition are errors. Races: two steps of one GPU that touch the same slot, one of them
writing, must be ordered by the step graph (program order, dependencies, messages);
otherwise the result depends on timing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tessel.ir.diagnostics import TesselError

from .model import Algorithm, CollKind, Step
from .steps import Node, StepGraph, build


class AlgorithmError(Exception):
    """The algorithm does not implement its collective; the message says where and why."""


def postcondition(alg: Algorithm, rank: int, slot: int) -> frozenset[tuple[int, int]] | None:
    """What output slot `slot` of `rank` must hold, or None if unconstrained."""
    coll = alg.collective
    n, c = coll.ranks, coll.chunkup
    kind = coll.kind
    if kind == CollKind.ALLGATHER:
        return frozenset({(slot // c, slot % c)})
    if kind == CollKind.REDUCE_SCATTER:
        return frozenset((s, rank * c + slot) for s in range(n))
    if kind == CollKind.ALLREDUCE:
        return frozenset((s, slot) for s in range(n))
    if kind == CollKind.ALLTOALL:
        return frozenset({(slot // c, rank * c + slot % c)})
    if kind == CollKind.BROADCAST:
        return frozenset({(coll.root, slot)})
    return frozenset((s, slot) for s in range(n)) if rank == coll.root else None


def _where(node: Node) -> str:
    return f"GPU {node[0]} tb {node[1]} step {node[2]}"


Contents = frozenset[tuple[int, int]]  # the (rank, input chunk) contributions a slot holds
Slot = tuple[str, int]


class _Propagation:
    """Symbolic buffers of every GPU, and who touched which slot (for the race check)."""

    def __init__(self, alg: Algorithm):
        self.state: list[dict[str, list[Contents | None]]] = []
        for g in alg.gpus:
            self.state.append(
                {
                    "i": [frozenset({(g.rank, k)}) for k in range(g.input_chunks)],
                    "o": [None] * g.output_chunks,
                    "s": [None] * g.scratch_chunks,
                }
            )
        self.accesses: dict[tuple[int, str, int], list[tuple[Node, bool]]] = defaultdict(list)

    def read(self, node: Node, step: Step, slot: Slot | None, what: str) -> list[Contents]:
        buf, off = _slot(node, step, slot)
        out = []
        for k in range(off, off + step.count):
            self.accesses[(node[0], buf, k)].append((node, False))
            value = self.state[node[0]][buf][k]
            if value is None:
                raise AlgorithmError(f"{_where(node)} ({step.op}) {what} {buf}[{k}] before anything was written there")
            out.append(value)
        return out

    def write(self, node: Node, step: Step, slot: Slot | None, values: list[Contents]) -> None:
        buf, off = _slot(node, step, slot)
        for k, v in zip(range(off, off + step.count), values):
            self.accesses[(node[0], buf, k)].append((node, True))
            self.state[node[0]][buf][k] = v

    @staticmethod
    def add(node: Node, step: Step, a: list[Contents], b: list[Contents]) -> list[Contents]:
        out = []
        for x, y in zip(a, b):
            twice = x & y
            if twice:
                r, k = min(twice)
                raise AlgorithmError(f"{_where(node)} ({step.op}) adds rank {r}'s chunk {k} a second time")
            out.append(x | y)
        return out


def _slot(node: Node, step: Step, slot: Slot | None) -> Slot:
    if slot is None:
        raise AlgorithmError(f"{_where(node)} ({step.op}) names no buffer slot")
    return slot


def check_algorithm(alg: Algorithm) -> None:
    """Raise AlgorithmError unless `alg` implements its collective without races."""
    try:
        graph = build(alg)
    except TesselError as err:
        raise AlgorithmError(err.message) from None
    p = _Propagation(alg)
    inflight: dict[Node, list[Contents]] = {}
    for node in graph.order:
        step = graph.step(node)
        if step.op == "send":
            inflight[node] = p.read(node, step, step.src, "sends")
        elif step.op == "recv":
            p.write(node, step, step.dst, inflight.pop(graph.match[node]))
        elif step.op == "recv_reduce_copy":
            mine = p.read(node, step, step.src, "reduces")
            p.write(node, step, step.dst, p.add(node, step, mine, inflight.pop(graph.match[node])))
        elif step.op == "copy":
            p.write(node, step, step.dst, p.read(node, step, step.src, "copies"))
        elif step.op == "reduce":
            into = p.read(node, step, step.dst, "reduces into")
            p.write(node, step, step.dst, p.add(node, step, into, p.read(node, step, step.src, "reduces")))

    _check_races(graph, p.accesses)  # first: a race is the cause of whatever else looks wrong
    for g in alg.gpus:
        for k in range(g.output_chunks):
            want = postcondition(alg, g.rank, k)
            got = p.state[g.rank]["o"][k]
            if want is not None and got != want:
                raise AlgorithmError(
                    f"GPU {g.rank} ends with o[{k}] = {_describe(got)}, {alg.collective.kind} needs {_describe(want)}"
                )


def _describe(v: frozenset[tuple[int, int]] | None) -> str:
    if v is None:
        return "nothing"
    items = sorted(v)
    text = ", ".join(f"r{r}:{k}" for r, k in items[:4])
    return "{" + text + (f", ... {len(items)} in all" if len(items) > 4 else "") + "}"


@dataclass
class _Reach:
    graph: StepGraph

    def __post_init__(self) -> None:
        self.pos = {n: i for i, n in enumerate(self.graph.order)}

    def before(self, a: Node, b: Node) -> bool:
        """Is a an ancestor of b in the step graph?"""
        pa = self.pos[a]
        stack, seen = [b], {b}
        while stack:
            n = stack.pop()
            for p in self.graph.preds[n]:
                if p == a:
                    return True
                if p not in seen and self.pos[p] > pa:
                    seen.add(p)
                    stack.append(p)
        return False


def _check_races(graph: StepGraph, accesses: dict[tuple[int, str, int], list[tuple[Node, bool]]]) -> None:
    reach = _Reach(graph)
    for (gpu, buf, k), acc in accesses.items():
        writes = [n for n, w in acc if w]
        if not writes:
            continue
        nodes = list(dict.fromkeys(n for n, _ in acc))
        for w in writes:
            for other in nodes:
                if other == w:
                    continue
                a, b = (w, other) if reach.pos[w] < reach.pos[other] else (other, w)
                if not reach.before(a, b):
                    what = "writes" if other in writes else "reads"
                    raise AlgorithmError(
                        f"race on GPU {gpu} {buf}[{k}]: {_where(w)} writes it while {_where(other)} {what} it, and neither waits for the other"
                    )
