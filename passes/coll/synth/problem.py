"""The synthesis problem: flows, the links each may use, integer costs, ports and symmetries.

Built once per (topology, collective, size, sketch) and shared by every solver stage.

- Allowed links: every intra-node link; IB links only between the local GPUs the sketch
  connects (`conn`), and for chunks leaving their node only through a sender the sketch's
  `senders` map allows.
- Candidate edges of a flow: links on (near-)shortest paths by cost, moving away from a
  broadcast's source or toward a reduction's destination (TACCL prunes the same way, with
  hop counts). `slack` (us) admits detours that cost that much more.
- Integer durations: the solvers work in units of `unit` us (about 1/1000 of the dearest
  link), as TACCL's MILP rounds its costs to integers.
- Symmetries: rank rotations (the sketch's, plus node rotation when the topology has it)
  that map the topology, the allowed links and the flows onto themselves; the solvers tie
  the variables of symmetric (flow, link) pairs, which shrinks the search.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from tessel.dialects.coll.model import Collective, Flow, Sketch, Topology, automorphism_problem, rotate
from tessel.ir.diagnostics import TesselError

Key = tuple[int, int]


@dataclass
class Problem:
    topo: Topology
    coll: Collective
    size: int
    sketch: Sketch | None
    flows: list[Flow]
    chunk_bytes: float
    cost: dict[Key, float]
    edges: dict[int, list[Key]]
    unit: float
    dur: dict[Key, int]
    perms: list[tuple[list[int], dict[int, int]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def resources(self) -> dict[Key, tuple[str, ...]]:
        return self.topo.resources


def _dijkstra(adj: dict[int, list[tuple[int, float]]], start: int) -> dict[int, float]:
    dist = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist.get(u, float("inf")):
            continue
        for v, c in adj.get(u, []):
            nd = d + c
            if nd < dist.get(v, float("inf")) - 1e-12:
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return dist


def allowed_links(topo: Topology, sketch: Sketch | None) -> set[Key]:
    per = topo.gpus_per_node
    pairs = sketch.ib_pairs(per) if sketch else None
    out = set()
    for (s, d), link in topo.links.items():
        if link.kind == "ib" and pairs is not None and (s % per, d % per) not in pairs:
            continue
        out.add((s, d))
    return out


def _flow_keys(flows: list[Flow]) -> dict[tuple, int]:
    """Flow identity up to renaming ranks: kind, root, destination, phase and its index among
    the flows sharing those (so a rotation maps the i-th chunk of rank r to the i-th of r')."""
    seen: dict[tuple, int] = {}
    out = {}
    for f in sorted(flows, key=lambda f: f.chunk):
        base = (f.kind, f.root, f.members[0] if f.kind == "unicast" else -1, f.after is None)
        out[base + (seen.get(base, 0),)] = f.id
        seen[base] = seen.get(base, 0) + 1
    return out


def build_problem(
    topo: Topology, coll: Collective, size: int, sketch: Sketch | None = None, slack: float = 0.0
) -> Problem:
    if coll.ranks != topo.gpus:
        raise TesselError(f"the collective has {coll.ranks} ranks, topology {topo.name} has {topo.gpus} GPUs")
    flows = coll.flows(sketch.roots(topo, coll) if sketch else None)
    chunk = coll.chunk_bytes(size)
    links = allowed_links(topo, sketch)
    cost = {k: topo.links[k].cost(chunk) for k in links}
    fwd: dict[int, list[tuple[int, float]]] = {}
    rev: dict[int, list[tuple[int, float]]] = {}
    for (s, d), c in cost.items():
        fwd.setdefault(s, []).append((d, c))
        rev.setdefault(d, []).append((s, c))
    per = topo.gpus_per_node
    senders = sketch.senders if sketch else None
    eps = 1e-9 + slack
    dist_from: dict[int, dict[int, float]] = {}
    dist_to: dict[int, dict[int, float]] = {}
    edges: dict[int, list[Key]] = {}
    for f in flows:
        if f.kind in ("bcast", "unicast"):
            usable = set(cost)
            if senders is not None:
                # chunks leave their node only through a sender that carries them
                g = f.root % per
                usable = {
                    (u, v)
                    for (u, v) in cost
                    if not (topo.node(u) == topo.node(f.root) != topo.node(v)) or g in senders.get(u % per, ())
                }
                dist = _dijkstra({u: [(v, c) for v, c in vs if (u, v) in usable] for u, vs in fwd.items()}, f.root)
            else:
                if f.root not in dist_from:
                    dist_from[f.root] = _dijkstra(fwd, f.root)
                dist = dist_from[f.root]
            targets = f.members
            for t in targets:
                if t not in dist:
                    raise TesselError(
                        f"infeasible: rank {t} cannot receive chunk {f.chunk} of rank {f.root}: no path over the links "
                        f"{'the sketch allows' if sketch else 'of topology ' + topo.name}"
                    )
            if f.kind == "unicast":
                dst = f.members[0]
                if dst not in dist_to:
                    dist_to[dst] = _dijkstra(rev, dst)
                back = dist_to[dst]
                bound = dist[dst] + eps
                es = [
                    (u, v)
                    for (u, v), c in cost.items()
                    if u in dist
                    and v in back
                    and (u, v) in usable
                    and dist[u] + c + back[v] <= bound
                    and v != f.root
                    and u != dst
                ]
            else:
                es = [
                    (u, v)
                    for (u, v), c in cost.items()
                    if u in dist
                    and v in dist
                    and (u, v) in usable
                    and dist[u] < dist[v]
                    and dist[u] + c <= dist[v] + eps
                    and v != f.root
                ]
        else:
            if f.root not in dist_to:
                dist_to[f.root] = _dijkstra(rev, f.root)
            dist = dist_to[f.root]
            for t in f.members:
                if t not in dist:
                    raise TesselError(
                        f"infeasible: rank {t} cannot contribute to chunk {f.chunk} reduced at rank {f.root}: no path over the links "
                        f"{'the sketch allows' if sketch else 'of topology ' + topo.name}"
                    )
            es = [
                (u, v)
                for (u, v), c in cost.items()
                if u in dist and v in dist and dist[v] < dist[u] and dist[v] + c <= dist[u] + eps and u != f.root
            ]
        edges[f.id] = sorted(es)
    top = max(cost.values())
    unit = top / 1000.0
    dur = {k: max(1, round(c / unit)) for k, c in cost.items()}
    problem = Problem(topo, coll, size, sketch, flows, chunk, cost, edges, unit, dur)
    problem.perms = _symmetries(problem, links)
    return problem


def _symmetries(p: Problem, links: set[Key]) -> list[tuple[list[int], dict[int, int]]]:
    topo = p.topo
    wanted: list[tuple[int, int]] = list(p.sketch.symmetry) if p.sketch else []
    if topo.nodes > 1 and (topo.gpus_per_node, topo.gpus) not in wanted:
        wanted.append((topo.gpus_per_node, topo.gpus))
    keys = _flow_keys(p.flows)
    index = {fid: key for key, fid in keys.items()}
    out = []
    for off, group in wanted:
        if topo.gpus % group or automorphism_problem(topo, off, group):
            p.notes.append(f"symmetry ({off}, {group}) skipped: not a symmetry of {topo.name}")
            continue
        sigma = [rotate(r, off, group) for r in range(topo.gpus)]
        if {(sigma[s], sigma[d]) for s, d in links} != links:
            p.notes.append(f"symmetry ({off}, {group}) skipped: the sketch's links are not symmetric under it")
            continue
        fmap = {}
        ok = True
        for f in p.flows:
            key = index[f.id]
            g = keys.get((key[0], sigma[key[1]], sigma[key[2]] if key[2] >= 0 else -1, key[3], key[4]))
            if g is None or {(sigma[u], sigma[v]) for u, v in p.edges[f.id]} != set(p.edges[g]):
                ok = False
                break
            fmap[f.id] = g
        if not ok:
            p.notes.append(f"symmetry ({off}, {group}) skipped: the collective's chunks are not symmetric under it")
            continue
        out.append((sigma, fmap))
    return out
