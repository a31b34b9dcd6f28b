"""Built-in topologies (NDv2, DGX-2, rings, custom matrices); TACCL's JSON files are read by taccl.py.

Profiles are TACCL's 1 MB ones (taccl/examples/topo): NVLink alpha 0.3 us, 23 us/MB over a
double NVLink and 46 over a single one on NDv2 (hybrid cube-mesh, one 100 Gb NIC per node);
8 us/MB through the NVSwitch of a DGX-2 (eight NICs, one per GPU pair); InfiniBand alpha
2.6 us, beta 105 us/MB. NDv2 pairs without NVLink talk over PCIe (alpha 1.0, beta 87 us/MB:
12 GB/s, Tessel's assumption; NCCL's point-to-point uses that path too).
"""

from __future__ import annotations

import re

from tessel.ir.diagnostics import TesselError

from .model import MAX_GPUS, Group, Link, LinkKind, Topology

# SCCL/TACCL's DGX-1 (= NDv2) NVLink counts, [src][dst]: 2 = double link, 1 = single.
NDV2_LINKS = [
    [0, 2, 1, 1, 2, 0, 0, 0],
    [2, 0, 1, 2, 0, 1, 0, 0],
    [1, 1, 0, 2, 0, 0, 2, 0],
    [1, 2, 2, 0, 0, 0, 0, 1],
    [2, 0, 0, 0, 0, 2, 1, 1],
    [0, 1, 0, 0, 2, 0, 1, 2],
    [0, 0, 2, 0, 1, 1, 0, 2],
    [0, 0, 0, 1, 1, 2, 2, 0],
]

IB_ALPHA, IB_BETA = 2.6, 105.0
PCIE_ALPHA, PCIE_BETA = 1.0, 87.0


def _add_ib(links: dict, gpus: int, per: int, alpha: float, beta: float) -> None:
    for s in range(gpus):
        for d in range(gpus):
            if s // per != d // per:
                links[(s, d)] = Link(s, d, LinkKind.IB, alpha, beta)


def ndv2(
    nodes: int = 1,
    alpha: float = 0.3,
    betas: tuple[float, float] = (23.0, 46.0),
    ib: tuple[float, float] = (IB_ALPHA, IB_BETA),
    pcie: bool = True,
) -> Topology:
    per, n = 8, 8 * nodes
    links: dict[tuple[int, int], Link] = {}
    for node in range(nodes):
        base = node * per
        for s in range(per):
            for d in range(per):
                count = NDV2_LINKS[s][d]
                if count:
                    beta = betas[0] if count == 2 else betas[1]
                    links[(base + s, base + d)] = Link(base + s, base + d, LinkKind.NVLINK, alpha, beta, count)
                elif pcie and s != d:
                    links[(base + s, base + d)] = Link(base + s, base + d, LinkKind.PCIE, PCIE_ALPHA, PCIE_BETA)
    _add_ib(links, n, per, *ib)
    nics = [Group(f"node{k}.nic0", tuple(range(k * per, (k + 1) * per))) for k in range(nodes)] if nodes > 1 else []
    return Topology(f"ndv2x{nodes}" if nodes > 1 else "ndv2", n, per, links, nics, [])


def dgx2(
    nodes: int = 1, alpha: float = 0.3, beta: float = 8.0, ib: tuple[float, float] = (IB_ALPHA, IB_BETA)
) -> Topology:
    per, n = 16, 16 * nodes
    links: dict[tuple[int, int], Link] = {}
    switches, nics = [], []
    for node in range(nodes):
        base = node * per
        members = tuple(range(base, base + per))
        switches.append(Group(f"node{node}.nvswitch", members))
        for s in members:
            for d in members:
                if s != d:
                    links[(s, d)] = Link(s, d, LinkKind.SWITCH, alpha, beta)
        if nodes > 1:
            nics += [Group(f"node{node}.nic{k}", (base + 2 * k, base + 2 * k + 1)) for k in range(per // 2)]
    _add_ib(links, n, per, *ib)
    return Topology(f"dgx2x{nodes}" if nodes > 1 else "dgx2", n, per, links, nics, switches)


def ring(gpus: int, alpha: float = 0.3, beta: float = 23.0) -> Topology:
    """A bidirectional NVLink ring, the smallest interesting topology (tests, docs)."""
    links = {}
    for g in range(gpus):
        for d in ((g + 1) % gpus, (g - 1) % gpus):
            if d != g:
                links[(g, d)] = Link(g, d, LinkKind.NVLINK, alpha, beta)
    return Topology(f"ring{gpus}", gpus, gpus, links, [], [])


def custom(
    name: str,
    counts: list[list[int]],
    betas: list[list[float]],
    alphas: list[list[float]],
    nodes: int = 1,
    ib: tuple[float, float] = (IB_ALPHA, IB_BETA),
    nics_per_node: int = 1,
) -> Topology:
    """A node from link-count and cost matrices ([src][dst]), replicated over `nodes`."""
    per = len(counts)
    links: dict[tuple[int, int], Link] = {}
    for node in range(nodes):
        base = node * per
        for s in range(per):
            for d in range(per):
                if counts[s][d] and s != d:
                    links[(base + s, base + d)] = Link(
                        base + s, base + d, LinkKind.NVLINK, alphas[s][d], betas[s][d], counts[s][d]
                    )
    _add_ib(links, per * nodes, per, *ib)
    return Topology(name, per * nodes, per, links, _nics(nodes, per, nics_per_node) if nodes > 1 else [], [])


Key = tuple[int, int]


def machine(
    name: str,
    node: dict[Key, Link],
    per: int,
    nodes: int = 1,
    *,
    hub: bool = False,
    pcie: bool = True,
    ib: tuple[float, float] = (IB_ALPHA, IB_BETA),
    nics_per_node: int = 1,
) -> Topology:
    """`nodes` copies of one node of `per` GPUs, joined by InfiniBand through their NICs.

    `node` holds the node's own links between local GPUs 0..per-1. `hub`: the node is a hub
    and spoke (an NVSwitch): its links become `switch` links of one crossbar, so each GPU has
    one out and one in port into it. `pcie`: local pairs without a link talk over PCIe (as
    NCCL's point-to-point does). NICs serve consecutive GPUs, `per / nics_per_node` each.
    """
    links: dict[Key, Link] = {}
    switches: list[Group] = []
    for k in range(nodes):
        base = k * per
        if hub:
            switches.append(Group(f"node{k}.nvswitch", tuple(range(base, base + per))))
        for (s, d), link in node.items():
            kind = LinkKind.SWITCH if hub else link.kind
            links[(base + s, base + d)] = Link(
                base + s, base + d, kind, link.alpha, link.beta, 1 if hub else link.lanes
            )
        if pcie:
            for s in range(per):
                for d in range(per):
                    if s != d and (s, d) not in node:
                        links[(base + s, base + d)] = Link(base + s, base + d, LinkKind.PCIE, PCIE_ALPHA, PCIE_BETA)
    _add_ib(links, per * nodes, per, *ib)
    nics = _nics(nodes, per, nics_per_node) if nodes > 1 else []
    return Topology(name, per * nodes, per, links, nics, switches)


def ndv2_node(alpha: float, betas: tuple[float, float]) -> dict[Key, Link]:
    """NDv2's hybrid cube-mesh: double NVLinks at betas[0], single ones at betas[1]."""
    out = {}
    for s in range(8):
        for d in range(8):
            if NDV2_LINKS[s][d]:
                beta = betas[0] if NDV2_LINKS[s][d] == 2 else betas[1]
                out[(s, d)] = Link(s, d, LinkKind.NVLINK, alpha, beta, NDV2_LINKS[s][d])
    return out


def hub_node(per: int, alpha: float, beta: float) -> dict[Key, Link]:
    """Every GPU of a hub-and-spoke node reaches every other through the hub at one cost."""
    return {(s, d): Link(s, d, LinkKind.SWITCH, alpha, beta) for s in range(per) for d in range(per) if s != d}


def _nics(nodes: int, per: int, nics_per_node: int) -> list[Group]:
    size = per // nics_per_node
    return [
        Group(f"node{k}.nic{j}", tuple(range(k * per + j * size, k * per + (j + 1) * size)))
        for k in range(nodes)
        for j in range(nics_per_node)
    ]


BUILTIN = re.compile(r"^(ndv2|dgx2|ring)(?:x(\d+))?$")


def builtin(name: str) -> Topology | None:
    """`ndv2`, `ndv2x2`, `ndv2x10`, `dgx2`, `dgx2x2`, `ring8`, ...; None if not a built-in name."""
    m = re.match(r"^ring(\d+)$", name)
    if m:
        _check_gpus(name, int(m.group(1)))
        return ring(int(m.group(1))) if int(m.group(1)) >= 2 else None
    m = BUILTIN.match(name)
    if not m or m.group(1) == "ring":
        return None
    nodes = int(m.group(2) or 1)
    if nodes < 1:
        return None
    _check_gpus(name, nodes * (8 if m.group(1) == "ndv2" else 16))
    return ndv2(nodes) if m.group(1) == "ndv2" else dgx2(nodes)


BUILTIN_NAMES = "ndv2, ndv2xN, dgx2, dgx2xN, ringN"


def _check_gpus(name: str, gpus: int) -> None:
    """Refuse before building: a built-in of 10^8 GPUs would take hours to construct."""
    if gpus > MAX_GPUS:
        raise TesselError(f"topology {name} has {gpus} GPUs, more than the limit of {MAX_GPUS}")
