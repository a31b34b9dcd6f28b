"""A NIC-bound-aware ALLGATHER for multi-node machines with few NICs (issue 22).

On such machines a large allgather is bound by the NICs (dialects/coll/bounds.py): every
node must take in every chunk it does not own through its NICs' receive sides. Reaching the
bound needs every receive side fed without a gap, which a schedule ranked only by remaining
path length (order.py) and first-come-first-served ports do not give: two nodes send to the
same node while a third one's NIC idles. This schedule is built for the NICs instead:

- one sender GPU per NIC (one the sketch lets use InfiniBand) sends the chunks of the NIC's
  GPUs to every other node, node by node in rounds: in round r node k sends to node k + r, so
  in every slot each receive side is fed by exactly one transmit side (a permutation) and all
  NICs stay busy in lockstep;
- the receiving GPU in the other node belongs to the matching NIC, taken round robin so that
  no GPU forwards every chunk, and spreads each chunk in its node along a shortest-path tree;
- inside a node every chunk spreads from its owner along a shortest-path tree, which also
  brings it to its NIC's sender; the trees are grown in the order their chunks arrive (the
  IB slot each lands in), on one timeline of the node's links and ports, so a chunk that
  lands while others still spread goes around the busy ports (on 8-GPU hubs with two NICs
  the spreading after the NICs finish went from 78 to 59 us);
- optionally (`tail`) an owner's chunks of a round cross InfiniBand as one message, one
  alpha, but for the last owners of the last round, whose small pieces spread fast.

The routes are timed by the list scheduler with the rounds as priorities, and the plan asks
the lowering to keep each GPU's sends on a shared port in planned order (Plan.serialize_ports),
so the simulator's first-come-first-served ports run the lockstep the plan was built on.
"""

from __future__ import annotations

from collections import defaultdict

from tessel.dialects.coll.model import CollKind, Group, LinkKind
from tessel.dialects.coll.plan import Plan

from .order import Task, list_schedule
from .problem import Key, Problem


def nic_pipeline(p: Problem, tail: int | None = None) -> Plan | None:
    """The NIC pipeline of `p`'s allgather, or None where it does not apply: one node, another
    collective, nodes with different NIC layouts, or a sketch that leaves some NIC no sender.

    `tail`: None sends every chunk over InfiniBand as its own message, each to the next
    receiver. Otherwise an owner's chunks of a round travel as one message (one alpha instead
    of `chunkup`), except for the last `tail` owners of each NIC's last round, which go chunk
    by chunk: what arrives last then spreads inside its node in small pieces, so the drain
    after the NICs finish is short while the NICs pay few alphas."""
    topo = p.topo
    if p.coll.kind != CollKind.ALLGATHER or topo.nodes < 2:
        return None
    per, c = topo.gpus_per_node, p.coll.chunkup
    nics = _nics_by_node(topo.nics, per, topo.nodes)
    if nics is None:
        return None
    allowed = set(p.cost)
    carriers = p.sketch.senders if p.sketch is not None else None
    # each NIC j of each node: a sender, the GPUs whose chunks it carries, its receivers
    senders: dict[tuple[int, int], int] = {}
    for node, groups in enumerate(nics):
        for j, group in enumerate(groups):
            sender = _sender(p, group, [nics[other][j] for other in range(topo.nodes) if other != node], allowed)
            if sender is None:
                return None
            if carriers is not None and any(g % per not in carriers.get(sender % per, ()) for g in group.gpus):
                return None  # the sketch does not let this sender carry its NIC's chunks
            senders[(node, j)] = sender
    local = {node: _intra_links(p, node) for node in range(topo.nodes)}
    routes: dict[int, list[Key]] = defaultdict(list)
    priority: dict[Task, int] = {}
    turn: dict[tuple[int, int], int] = defaultdict(int)  # (receiving node, NIC) -> receivers used
    message: dict[tuple[int, int], int] = {}  # (owner, round) -> receiver of its one message
    messages: dict[Task, int] = {}  # a merged send -> its message: (owner, round)
    spreads: list[tuple[float, int, int, int]] = []  # (estimated start, flow, node, root)
    for f in sorted(p.flows, key=lambda f: f.chunk):
        owner = f.root
        home = topo.node(owner)
        j = next(j for j, g in enumerate(nics[home]) if owner in g.gpus)
        sender = senders[(home, j)]
        spreads.append((0.0, f.id, home, owner))
        for r in range(1, topo.nodes):
            node = (home + r) % topo.nodes
            receivers = [d for d in nics[node][j].gpus if (sender, d) in allowed]
            if tail is not None and not (r == topo.nodes - 1 and _in_tail(nics[home][j].gpus, sender, owner, tail)):
                if (owner, r) not in message:
                    message[(owner, r)] = receivers[turn[(node, j)] % len(receivers)]
                    turn[(node, j)] += 1
                d = message[(owner, r)]
                messages[(f.id, (sender, d))] = owner * topo.nodes + r
            else:
                d = receivers[turn[(node, j)] % len(receivers)]
                turn[(node, j)] += 1
            routes[f.id].append((sender, d))
            # round r, then the chunk's place in its NIC's queue (own chunks first: no wait)
            place = _rank(nics[home][j].gpus, (owner != sender, owner, f.chunk), c)
            priority[(f.id, (sender, d))] = (r - 1) * per * c * 4 + place
            # when the chunk lands, if the NIC sends its queue without a gap
            slot = (r - 1) * len(nics[home][j].gpus) * c + _slot(nics[home][j].gpus, sender, owner, f.chunk, c)
            spreads.append(((slot + 1) * p.cost[(sender, d)], f.id, node, d))
    # Each chunk spreads in a node along a tree grown on the node's links as they will be busy
    # then: the trees are built in the order their chunks arrive, on one timeline of ports.
    free: dict[str, float] = defaultdict(float)
    load: dict[int, int] = defaultdict(int)  # GPU -> switch sends so far
    for at, fid, node, root in sorted(spreads):
        routes[fid].extend(_tree(local[node], root, at, p, free, load))
    plan = list_schedule(p, dict(routes), priority, messages)
    plan.note = "nic pipeline"  # what the driver and the tools know it by
    plan.meta["messages"] = "a message a chunk" if tail is None else f"a message an owner but the last {tail}"
    plan.serialize_ports = True
    return plan


def _in_tail(gpus: tuple[int, ...], sender: int, owner: int, tail: int) -> bool:
    """Is `owner` among the last `tail` of its NIC's queue (the sender's own chunks first, then
    the others in GPU order: `_rank`)?"""
    return tail > 0 and owner in _queue(gpus, sender)[-tail:]


def _nics_by_node(nics: list[Group], per: int, nodes: int) -> list[list[Group]] | None:
    """Each node's NICs in GPU order, when every node has the same number, each of the same size."""
    out: list[list[Group]] = [[] for _ in range(nodes)]
    for nic in nics:
        out[nic.gpus[0] // per].append(nic)
    shapes = {tuple(sorted(len(n.gpus) for n in groups)) for groups in out}
    if len(shapes) != 1 or not out[0]:
        return None
    return [sorted(groups, key=lambda n: min(n.gpus)) for groups in out]


def _sender(p: Problem, group: Group, matching: list[Group], allowed: set[Key]) -> int | None:
    """The GPU of `group` that the sketch lets reach the most GPUs of the matching NICs."""
    best, reach = None, 0
    for g in sorted(group.gpus):
        n = sum(1 for other in matching for d in other.gpus if (g, d) in allowed)
        if n and all(any((g, d) in allowed for d in other.gpus) for other in matching) and n > reach:
            best, reach = g, n
    return best


def _intra_links(p: Problem, node: int) -> dict[int, list[tuple[int, float]]]:
    """The node's own links the problem allows, as an adjacency list with costs."""
    adj: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for (u, v), cost in p.cost.items():
        if p.topo.node(u) == node == p.topo.node(v) and p.topo.links[(u, v)].kind != LinkKind.IB:
            adj[u].append((v, cost))
    return adj


def _tree(
    adj: dict[int, list[tuple[int, float]]],
    root: int,
    start: float,
    p: Problem,
    free: dict[str, float],
    load: dict[int, int],
) -> list[Key]:
    """A broadcast tree from `root` (holding the chunk at `start`) to the other GPUs of its node,
    grown by earliest arrival: the next GPU is the one a holder can reach first, with every link
    and port (a switch's out- and in-ports, an NVLink) waiting until the trees built before this
    one leave it free (`free`, updated here). So a switch node gets a binomial tree, a mesh its
    shortest-path tree, and a chunk that lands while others still spread goes around the busy
    ports. Among ties, the GPUs that earlier trees made relay least are reached first (`load`:
    switch sends so far): on a switch every arrival ties, and the lowest-numbered GPU became an
    early relay of every tree (51 sends on the 8-GPU hub, whose 23 chunks each GPU must
    receive; 1.57x the NIC bound)."""
    arrival = {root: start}
    edges: list[Key] = []
    todo = {v for u in adj for v, _ in adj[u]} | set(adj)
    todo.discard(root)
    while todo:
        best: tuple[float, int, int, int, int] | None = None
        for u in sorted(arrival):
            for v, cost in adj.get(u, []):
                if v in todo:
                    at = max(arrival[u], *(free[r] for r in p.resources[(u, v)])) + cost
                    key = (at, load[u], load[v], u, v)
                    if best is None or key < best:
                        best = key
        if best is None:
            break  # the rest of the node is unreachable from root: the list scheduler reports it
        at, _, _, u, v = best
        arrival[v] = at
        for r in p.resources[(u, v)]:
            free[r] = at
        if p.topo.links[(u, v)].kind == LinkKind.SWITCH:
            load[u] += 1
        edges.append((u, v))
        todo.discard(v)
    return edges


def _queue(gpus: tuple[int, ...], sender: int) -> list[int]:
    """The owners of a NIC's chunks in the order it sends them each round (`_rank`)."""
    return [sender] + [g for g in gpus if g != sender]


def _slot(gpus: tuple[int, ...], sender: int, owner: int, chunk: int, chunkup: int) -> int:
    """The chunk's place (0, 1, ...) in its NIC's queue of a round, in `_rank`'s order."""
    return _queue(gpus, sender).index(owner) * chunkup + chunk % chunkup


def _rank(gpus: tuple[int, ...], position: tuple[bool, int, int], chunkup: int) -> int:
    """The place of a chunk in its NIC's queue of a round: the sender's own chunks first, then
    the others by owner (they arrive at the sender over the node's links meanwhile)."""
    later, owner, chunk = position
    return (2 * chunkup * len(gpus)) * int(later) + gpus.index(owner) * chunkup + chunk % chunkup
