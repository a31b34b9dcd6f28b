"""A plan (which chunk crosses which link, when) and its lowering to MSCCL threadblocks.

Synthesis (passes/coll/synth) and the NCCL baselines (targets/nccl/baselines.py) both produce
plans; `lower` turns one into an `Algorithm`: per GPU one threadblock per send peer, one per recv peer and
one for local copies, steps in planned order, cross-threadblock dependencies where a step
needs data another step produced. Where chunks live:

  bcast flow of chunk j   root: its input chunk (allgather, broadcast) or o[j] (allreduce,
                          after the reduction); everyone else: o[j] (o[k] for broadcast)
  reduce flow of chunk j  contributions are i[j]; partial sums accumulate in scratch, the
                          root's in its output slot
  unicast s -> d          i[d*c+k] at s, o[s*c+k] at d, scratch at relays

Sends in one `group` travel as one message (`count` > 1) when their slots are contiguous at
both ends; otherwise they are split into contiguous runs.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from .model import Algorithm, Collective, CollKind, Flow, GpuProgram, Step, Threadblock, Topology


@dataclass
class Send:
    flow: int
    src: int
    dst: int
    start: float = 0.0
    end: float = 0.0
    group: int = -1


@dataclass
class Plan:
    """Which chunk crosses which link when (`sends`), for the flows of a collective.

    `serialize_ports`: the lowering keeps each GPU's sends over a shared port (a NIC's transmit
    side, a switch out-port) in planned order with dependencies, so that first-come-first-served
    ports (simulate.py, and the hardware) see the order the plan was built on."""

    coll: Collective
    flows: list[Flow]
    sends: list[Send]
    chunk_bytes: float
    topology: Topology
    note: str = ""
    groups: int = 0
    meta: dict = field(default_factory=dict)
    serialize_ports: bool = False

    @property
    def makespan(self) -> float:
        return max((s.end for s in self.sends), default=0.0)

    def copy(self) -> Plan:
        return Plan(
            self.coll,
            self.flows,
            [Send(s.flow, s.src, s.dst, s.start, s.end, s.group) for s in self.sends],
            self.chunk_bytes,
            self.topology,
            self.note,
            self.groups,
            dict(self.meta),
            self.serialize_ports,
        )


Slot = tuple[str, int]


class Locations:
    """Where each flow's data lives at each rank (see the module docstring)."""

    def __init__(self, plan: Plan):
        self.plan = plan
        coll = plan.coll
        self.c = coll.chunkup
        receivers: dict[int, set[int]] = defaultdict(set)
        for s in plan.sends:
            receivers[s.flow].add(s.dst)
        self.receivers = receivers
        self.scratch: dict[tuple[int, int], int] = {}
        counts: dict[int, int] = defaultdict(int)
        for f in sorted(plan.flows, key=lambda f: f.id):
            for v in sorted(receivers[f.id]):
                if self._needs_scratch(f, v):
                    self.scratch[(f.id, v)] = counts[v]
                    counts[v] += 1
        self.scratch_chunks = dict(counts)

    def _needs_scratch(self, f: Flow, v: int) -> bool:
        if f.kind == "reduce":
            return v != f.root
        if f.kind == "unicast":
            return v != f.members[0]
        return False

    def source(self, f: Flow) -> Slot:
        """Where the data a flow starts from lives at its root (bcast/unicast)."""
        kind = self.plan.coll.kind
        if f.kind == "unicast":
            return ("i", f.chunk)
        if kind == CollKind.ALLGATHER:
            return ("i", f.chunk - f.root * self.c)
        if kind == CollKind.BROADCAST:
            return ("i", f.chunk)
        return ("o", f.chunk)  # allreduce: the reduced chunk

    def held(self, f: Flow, v: int) -> Slot:
        """Where rank v reads the flow's data when it sends it."""
        if f.kind == "bcast":
            return self.source(f) if v == f.root else self.dest(f, v)
        if f.kind == "unicast":
            return ("i", f.chunk) if v == f.root else self.dest(f, v)
        # reduce: the accumulated partial if v received any, else v's own contribution
        if f.id in self.receivers and v in self.receivers[f.id]:
            return self.dest(f, v)
        return ("i", f.chunk)

    def dest(self, f: Flow, v: int) -> Slot:
        """Where rank v puts what it receives of the flow."""
        kind = self.plan.coll.kind
        if (f.id, v) in self.scratch:
            return ("s", self.scratch[(f.id, v)])
        if f.kind == "unicast":
            return ("o", f.root * self.c + f.chunk % self.c)
        if f.kind == "reduce":
            return ("o", f.chunk - f.root * self.c) if kind == CollKind.REDUCE_SCATTER else ("o", f.chunk)
        if kind == CollKind.BROADCAST:
            return ("o", f.chunk)
        return ("o", f.chunk)


def _contiguous(slots: list[Slot]) -> bool:
    return all(a[0] == b[0] and b[1] == a[1] + 1 for a, b in zip(slots, slots[1:]))


def _consecutive(unit: list[Send], flows: dict[int, Flow]) -> bool:
    """Are the unit's chunks j, j+1, ... in message order (so one i[j] x n reads them all)?"""
    first = flows[unit[0].flow].chunk
    return all(flows[s.flow].chunk == first + k for k, s in enumerate(unit))


def _runs(sends: list[Send], loc: Locations, flows: dict[int, Flow]) -> list[list[Send]]:
    """Split a merged group (in planned order, sorted by slot) into contiguous runs."""
    sends = sorted(sends, key=lambda s: loc.held(flows[s.flow], s.src))
    runs: list[list[Send]] = []
    for s in sends:
        if runs:
            last = runs[-1]
            held = [loc.held(flows[x.flow], x.src) for x in last + [s]]
            dest = [loc.dest(flows[x.flow], x.dst) for x in last + [s]]
            if _contiguous(held) and _contiguous(dest):
                last.append(s)
                continue
        runs.append([s])
    return runs


@dataclass
class _Pending:
    """A step whose dependencies are still symbolic (keys of producing steps)."""

    step: Step
    key: int  # position in the global planned order
    produces: list[tuple[int, int]] = field(default_factory=list)  # (flow, rank) written
    needs: list[tuple[int, int, int]] = field(default_factory=list)  # (flow, rank, version) read


def lower(plan: Plan, name: str) -> Algorithm:
    """Threadblocks for a plan; steps in planned order, dependencies explicit."""
    coll = plan.coll
    flows = {f.id: f for f in plan.flows}
    loc = Locations(plan)
    n = coll.ranks
    # Merged groups first: the message of a group is one unit in the planned order.
    units: list[list[Send]] = []
    grouped: dict[tuple[int, int, int], list[Send]] = defaultdict(list)
    for s in plan.sends:
        if s.group >= 0:
            grouped[(s.group, s.src, s.dst)].append(s)
        else:
            units.append([s])
    for members in grouped.values():
        units.extend(_runs(members, loc, flows))
    # Planned time of a unit: its latest member's start (a message waits for all its chunks).
    units.sort(key=lambda u: (max(s.start for s in u), min(s.flow for s in u)))

    tbs: dict[int, dict[tuple[str, int], list[_Pending]]] = {r: defaultdict(list) for r in range(n)}
    # version of the data of (flow, rank) = number of writes so far; a send reads the final one
    final_version: dict[tuple[int, int], int] = defaultdict(int)
    for u in units:
        for s in u:
            final_version[(s.flow, s.dst)] += 1
    written: dict[tuple[int, int], int] = defaultdict(int)
    work = list(reversed(units))
    order = 0
    while work:
        u = work.pop()
        first = u[0]
        f0 = flows[first.flow]
        src, dst = first.src, first.dst
        starts = [written[(s.flow, dst)] == 0 for s in u]
        if (
            f0.kind == "reduce"
            and len(u) > 1
            and (any(starts) != all(starts) or (all(starts) and not _consecutive(u, flows)))
        ):
            # some members start the partial at dst, others add to it: their src slots differ; or
            # all start it, from dst's own input chunks, which are not in the message's order
            work.extend(reversed([[s] for s in u]))
            continue
        order += 1
        send = Step("send", loc.held(f0, src), None, len(u))
        sp = _Pending(send, order)
        for s in u:
            f = flows[s.flow]
            if final_version[(s.flow, src)]:
                sp.needs.append((s.flow, src, final_version[(s.flow, src)]))
            if f.kind == "bcast" and f.after is not None and src == f.root and final_version[(f.after, src)]:
                sp.needs.append((f.after, src, final_version[(f.after, src)]))
        tbs[src][("send", dst)].append(sp)
        if f0.kind == "reduce":
            writes = written[(first.flow, dst)]
            prev = loc.dest(f0, dst) if writes else ("i", f0.chunk)
            rp = _Pending(Step("recv_reduce_copy", prev, loc.dest(f0, dst), len(u)), order)
            for s in u:
                v = written[(s.flow, dst)]
                if v:
                    rp.needs.append((s.flow, dst, v))
        else:
            rp = _Pending(Step("recv", None, loc.dest(f0, dst), len(u)), order)
        for s in u:
            written[(s.flow, dst)] += 1
            rp.produces.append((s.flow, dst))
        tbs[dst][("recv", src)].append(rp)

    gpus = []
    for r in range(n):
        lanes = tbs[r]
        lane_order = sorted(lanes, key=lambda k: (k[0] != "send", k[1]))
        threadblocks: list[Threadblock] = []
        where: dict[tuple[int, int, int], tuple[int, int]] = {}
        pendings: list[list[_Pending]] = []
        for kind, peer in lane_order:
            steps = sorted(lanes[(kind, peer)], key=lambda p: p.key)
            threadblocks.append(
                Threadblock(peer if kind == "send" else -1, peer if kind == "recv" else -1, 0, [p.step for p in steps])
            )
            pendings.append(steps)
        version: dict[tuple[int, int], int] = defaultdict(int)
        # versions are assigned in planned order across the GPU's recv threadblocks
        produced = sorted(
            ((p.key, t, k, p) for t, ps in enumerate(pendings) for k, p in enumerate(ps) if p.produces),
            key=lambda x: x[0],
        )
        for _, t, k, p in produced:
            for fr in p.produces:
                version[fr] += 1
                where[(fr[0], fr[1], version[fr])] = (t, k)
        for t, ps in enumerate(pendings):
            for k, p in enumerate(ps):
                deps = []
                for need in p.needs:
                    at = where.get(need)
                    if at is None:
                        raise AssertionError(f"plan lowering: step needs {need} which no step at rank {r} produces")
                    if at[0] != t and at not in deps:
                        deps.append(at)
                    elif at[0] == t and at[1] >= k:
                        raise AssertionError(
                            f"plan lowering: step {k} of tb {t} at rank {r} waits for a later step of its own threadblock"
                        )
                p.step.deps = deps
        if plan.serialize_ports:
            sends = [(peer, ps) for (kind, peer), ps in zip(lane_order, pendings) if kind == "send"]
            _serialize_ports(plan.topology, r, sends)
        local = _local_steps(coll, plan.flows, loc, r)
        if local:
            threadblocks.append(Threadblock(-1, -1, 0, local))
        gpus.append(GpuProgram(r, coll.input_chunks, coll.output_chunks, loc.scratch_chunks.get(r, 0), threadblocks))
    return Algorithm(name, coll, plan.topology.name, gpus)


def _serialize_ports(topo: Topology, rank: int, sends: list[tuple[int, list[_Pending]]]) -> None:
    """Chain `rank`'s sends that share a port in planned order (the send threadblocks come
    first, so a send's threadblock index is its position in `sends`)."""
    by_port: dict[str, list[tuple[int, int, int]]] = defaultdict(list)  # port -> (key, tb, step)
    for t, (peer, pending) in enumerate(sends):
        for port in topo.resources[(rank, peer)][1:]:  # the link itself first, then its ports
            by_port[port].extend((p.key, t, k) for k, p in enumerate(pending))
    steps = {(t, k): p for t, (_, pending) in enumerate(sends) for k, p in enumerate(pending)}
    for queue in by_port.values():
        queue.sort()
        for (_, t0, k0), (_, t1, k1) in zip(queue, queue[1:]):
            deps = steps[(t1, k1)].step.deps
            if t0 != t1 and (t0, k0) not in deps:
                deps.append((t0, k0))


def _local_steps(coll: Collective, flows: list[Flow], loc: Locations, r: int) -> list[Step]:
    """Copies an out-of-place collective needs besides the transfers."""
    steps = []
    if coll.kind == CollKind.ALLGATHER:
        for k in range(coll.chunkup):
            steps.append(Step("copy", ("i", k), ("o", r * coll.chunkup + k), 1))
    elif coll.kind == CollKind.ALLTOALL:
        steps.append(Step("copy", ("i", r * coll.chunkup), ("o", r * coll.chunkup), coll.chunkup))
    elif coll.kind == CollKind.BROADCAST and r == coll.root:
        steps.append(Step("copy", ("i", 0), ("o", 0), coll.chunkup))
    elif coll.kind in (CollKind.REDUCE_SCATTER, CollKind.ALLREDUCE, CollKind.REDUCE):
        # a root that receives no partial (a single rank) copies its own contribution
        for f in flows:
            if f.kind == "reduce" and f.root == r and r not in loc.receivers.get(f.id, set()):
                steps.append(Step("copy", ("i", f.chunk), loc.dest(f, r), 1))
    return _merge_copies(steps)


def _merge_copies(steps: list[Step]) -> list[Step]:
    out: list[Step] = []
    for s in steps:
        if out:
            p = out[-1]
            if (
                p.src
                and p.dst
                and s.src
                and s.dst
                and p.src[0] == s.src[0]
                and p.dst[0] == s.dst[0]
                and s.src[1] == p.src[1] + p.count
                and s.dst[1] == p.dst[1] + p.count
            ):
                p.count += s.count
                continue
        out.append(s)
    return out
