"""NCCL's algorithms as plans, timed by the same simulator as Tessel's (the fair comparison).

- ring (allgather, reduce_scatter, allreduce = RS + AG): `nch` channels, each a ring through
  every GPU along the cheapest intra-node links, crossing nodes over IB; on multi-NIC nodes
  ring c leaves through NIC c, on single-NIC nodes odd rings run backwards.
- tree (allreduce): NCCL's double binary tree over nodes with a chain inside each node,
  the buffer pipelined in pieces, half of them on each tree.
- p2p (alltoall): every rank sends to every other directly (over PCIe or IB where there is
  no NVLink), in NCCL's grouped order: round i, rank r sends to r + i.

`best` tries the channel counts / pipeline depths NCCL could use and keeps the fastest.
"""

from __future__ import annotations

import itertools

from tessel.dialects.coll.model import Collective, CollKind, Flow, Topology
from tessel.dialects.coll.plan import Plan, Send, lower
from tessel.dialects.coll.simulate import simulate
from tessel.ir.diagnostics import TesselError


def _hamiltonian(adj: dict[int, list[int]], path: list[int], size: int) -> bool:
    """Extend `path` (in place) to a cycle through all `size` GPUs over `adj`, depth first."""
    if len(path) == size:
        return path[0] in adj[path[-1]]
    for d in adj[path[-1]]:
        if d not in path:
            path.append(d)
            if _hamiltonian(adj, path, size):
                return True
            path.pop()
    return False


def node_ring(topo: Topology) -> list[int]:
    """A Hamiltonian cycle through node 0's GPUs over the cheapest links (local indices)."""
    per = topo.gpus_per_node
    if per == 1:
        return [0]
    cost = {(s, d): l.beta for (s, d), l in topo.links.items() if s < per and d < per}
    for limit in sorted(set(cost.values())):
        adj = {g: [d for d in range(per) if cost.get((g, d), 1e300) <= limit] for g in range(per)}
        path = [0]
        if _hamiltonian(adj, path, per):
            return path
    raise TesselError(f"topology {topo.name}: no ring through the GPUs of a node (NCCL's ring needs one)")


def rings(topo: Topology, nch: int) -> list[list[int]]:
    local = node_ring(topo)
    per, nodes = topo.gpus_per_node, topo.nodes
    nics = max(1, len(topo.nics) // max(nodes, 1))
    out = []
    for c in range(nch):
        order = list(local)
        if nics > 1:
            shift = (2 * c + 2) % per  # leave through a different NIC per ring
            order = order[shift:] + order[:shift]
        elif c % 2:
            order = [order[0]] + order[1:][::-1]
        ring = [k * per + g for k in range(nodes) for g in order]
        for a, b in zip(ring, ring[1:] + ring[:1]):
            if (a, b) not in topo.links:
                raise TesselError(f"topology {topo.name}: NCCL's ring needs a link {a} -> {b}")
        out.append(ring)
    return out


def ring_plan(topo: Topology, kind: CollKind, size: int, nch: int) -> Plan:
    n = topo.gpus
    coll = Collective(kind, n, nch)
    flows = coll.flows()
    rs = rings(topo, nch)
    sends = []
    for f in flows:
        ch = f.chunk % nch
        ring = rs[ch]
        pos = ring.index(f.root)
        if f.kind == "bcast":
            base = (n - 1) if f.after is not None else 0
            for t in range(n - 1):
                a, b = ring[(pos + t) % n], ring[(pos + t + 1) % n]
                sends.append(Send(f.id, a, b, base + t + ch / nch, base + t + 1))
        else:
            for t in range(n - 1):
                a, b = ring[(pos + 1 + t) % n], ring[(pos + 2 + t) % n]
                sends.append(Send(f.id, a, b, t + ch / nch, t + 1))
    return Plan(coll, flows, sends, coll.chunk_bytes(size), topo, f"NCCL ring x{nch}")


def _heap_tree(nodes: int, mirror: bool) -> dict[int, int]:
    """Parent of each node in a binary heap (the second tree is the first, mirrored)."""
    idx = (lambda k: nodes - 1 - k) if mirror else (lambda k: k)
    return {idx(k): idx((k - 1) // 2) for k in range(1, nodes)}


def tree_plan(topo: Topology, size: int, messages: int, interleave: bool = False) -> Plan:
    """Double binary tree; each tree carries half the buffer in `messages` pipelined messages
    (`interleave`: chunks alternate between the trees instead of halving the buffer)."""
    n, per, nodes = topo.gpus, topo.gpus_per_node, topo.nodes
    chain = node_ring(topo)
    ntrees = 2 if nodes > 1 else 1
    c = max(1, -(-ntrees * messages // n))  # chunkup so that every message holds whole chunks
    while (n * c) % (ntrees * messages):
        c += 1
    coll = Collective(CollKind.ALLREDUCE, n, c)
    half = n * c // ntrees
    per_msg = half // messages
    trees = []
    for mirror in (False, True)[:ntrees]:
        parent: dict[int, int] = {}
        for k in range(nodes):
            members = [k * per + x for x in chain]
            for a, b in zip(members[1:], members[:-1]):
                parent[a] = b  # up the chain toward the node's first GPU
        for child, par in _heap_tree(nodes, mirror).items():
            parent[child * per + chain[0]] = par * per + chain[0]
        root = next(g for g in range(n) if g not in parent)
        h = {g: 0 for g in range(n)}
        for g in range(n):
            d, x = 0, g
            while x in parent:
                d += 1
                x = parent[x]
                h[x] = max(h[x], d)
        trees.append((parent, root, h))
    flows: list[Flow] = []
    sends = []
    reduce_ids = {}
    for f in coll.flows():
        if interleave:
            t, msg = f.chunk % len(trees), (f.chunk // len(trees)) // per_msg
        else:
            t, msg = f.chunk // half, (f.chunk % half) // per_msg
        parent, root, h = trees[t]
        top = h[root]
        group = (t * messages + msg) * 2
        if f.kind == "reduce":
            nf = Flow(f.id, "reduce", root, f.members, f.chunk)
            reduce_ids[f.chunk] = f.id
            for g, p in parent.items():
                sends.append(Send(f.id, g, p, msg + (top - h[g]), 0, group))
        else:
            nf = Flow(f.id, "bcast", root, tuple(x for x in range(n) if x != root), f.chunk, reduce_ids[f.chunk])
            for g, p in parent.items():
                sends.append(Send(f.id, p, g, msg + 2 * top - h[g], 0, group + 1))
        flows.append(nf)
    for s in sends:
        s.end = s.start + 1
    plan = Plan(coll, flows, sends, coll.chunk_bytes(size), topo, f"NCCL tree x{messages}{'i' if interleave else ''}")
    plan.groups = 2 * ntrees * messages
    return plan


def p2p_plan(topo: Topology, size: int) -> Plan:
    n = topo.gpus
    coll = Collective(CollKind.ALLTOALL, n, 1)
    flows = coll.flows()
    sends = []
    for f in flows:
        d = f.members[0]
        if (f.root, d) not in topo.links:
            raise TesselError(f"topology {topo.name}: NCCL's all-to-all needs a direct link {f.root} -> {d}")
        r = (d - f.root) % n
        sends.append(Send(f.id, f.root, d, r, r + 1))
    return Plan(coll, flows, sends, coll.chunk_bytes(size), topo, "NCCL p2p")


def candidates(topo: Topology, kind: CollKind, size: int) -> list[Plan]:
    if kind == CollKind.ALLTOALL:
        return [p2p_plan(topo, size)]
    plans = []
    max_ch = max(2, min(8, 2 * max(1, len(topo.nics) // max(topo.nodes, 1))))
    if kind in (CollKind.ALLGATHER, CollKind.REDUCE_SCATTER, CollKind.ALLREDUCE):
        for nch in itertools.takewhile(lambda c: c <= max_ch, (1, 2, 4, 8)):
            plans.append(ring_plan(topo, kind, size, nch))
    if kind == CollKind.ALLREDUCE:
        for messages in (1, 2, 4, 8, 16, 32):
            plans.append(tree_plan(topo, size, messages))
        for messages in (8, 32, 64, 128):
            plans.append(tree_plan(topo, size, messages, interleave=True))
    if not plans:
        raise TesselError(f"no NCCL baseline for {kind}")
    return plans


def best(topo: Topology, kind: CollKind, size: int) -> dict[str, tuple[float, str]]:
    """Simulated time of NCCL's best ring and best tree (or p2p): {"ring": (us, label), ...}."""
    out: dict[str, tuple[float, str]] = {}
    for plan in candidates(topo, kind, size):
        family = plan.note.split()[1]
        t = simulate(lower(plan, family), topo, plan.chunk_bytes).time
        if family not in out or t < out[family][0]:
            out[family] = (t, plan.note)
    return out
