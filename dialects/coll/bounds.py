"""Analytic lower bounds on a collective's time under the alpha-beta model (simulate.py).

The NIC bound of an ALLGATHER: every node must receive every chunk it does not own, and all
of it enters through the receive sides of the node's NICs; every node must also send its own
chunks out at least once, through the transmit sides. With the node's NICs sharing the load
perfectly and at least one message's latency paid, no schedule is faster than

    alpha_ib + max over nodes k of  max(bytes into k, bytes out of k) / NICs of k * beta_ib

(beta in microseconds per MiB; the cheapest IB link of the node). On the 3-node mesh of 4 GPUs
with one NIC per node and 1 MiB per rank that is 2.6 + 8 * 105 = 842.6 us, on NDv2 x4 with
1 MiB per rank 2.6 + 24 * 105 = 2522.6 us. The bound ignores everything inside the nodes, so
on machines whose NVLinks or switch ports are the bottleneck it is far from reachable.
"""

from __future__ import annotations

from .model import MIB, Collective, CollKind, LinkKind, Topology


def nic_bound(topo: Topology, coll: Collective, size: int) -> float | None:
    """The NIC bound (us) of an ALLGATHER of `size` bytes per rank's output buffer on a
    multi-node machine, or None where it does not apply (one node, no IB, other collectives)."""
    if coll.kind != CollKind.ALLGATHER or topo.nodes < 2:
        return None
    ib = [link for link in topo.links.values() if link.kind == LinkKind.IB]
    if not ib:
        return None
    per_rank = size / topo.gpus  # bytes each rank contributes
    worst = 0.0
    for node in range(topo.nodes):
        gpus = set(range(node * topo.gpus_per_node, (node + 1) * topo.gpus_per_node))
        nics = [nic for nic in topo.nics if set(nic.gpus) <= gpus]
        links = [link for link in ib if link.src in gpus or link.dst in gpus]
        if not nics or not links:
            return None
        beta = min(link.beta for link in links)
        into = (topo.gpus - len(gpus)) * per_rank
        out = len(gpus) * per_rank
        worst = max(worst, max(into, out) / len(nics) * beta / MIB)
    return min(link.alpha for link in ib) + worst


def ingress_bound(topo: Topology, coll: Collective, size: int) -> float | None:
    """The ingress bound (us) of an ALLGATHER: every GPU must take in every share but its own,
    over its in-links (an NVLink or PCIe link each at its own rate, all of a switch's links
    through the GPU's one in-port) or through its NIC's receive side; a node cannot take in
    faster than all of these together. None for other collectives.

    Where this bound is above the NIC bound, the machine is bound inside its nodes (DGX-2's
    NVSwitch ports with a NIC per GPU pair), and the NIC bound is not reachable."""
    if coll.kind != CollKind.ALLGATHER:
        return None
    share = size / topo.gpus / MIB  # MiB each rank contributes
    worst = 0.0
    for node in range(topo.nodes):
        gpus = set(range(node * topo.gpus_per_node, (node + 1) * topo.gpus_per_node))
        rate = 0.0  # MiB per us the node's GPUs can take in together
        for g in gpus:
            into = [link for link in topo.links.values() if link.dst == g and link.kind != LinkKind.IB]
            switched = [link for link in into if link.kind == LinkKind.SWITCH]
            rate += sum(1 / link.beta for link in into if link.kind != LinkKind.SWITCH)
            rate += 1 / min(link.beta for link in switched) if switched else 0.0
        for nic in topo.nics:
            if set(nic.gpus) <= gpus:
                entering = [
                    link.beta for link in topo.links.values() if link.kind == LinkKind.IB and link.dst in nic.gpus
                ]
                rate += 1 / min(entering) if entering else 0.0
        if rate == 0:
            return None
        worst = max(worst, len(gpus) * (topo.gpus - 1) * share / rate)
    return worst
