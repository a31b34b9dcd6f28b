"""NCCL's own tuner estimate (src/graph/tuning.cc), fed with the topology's bandwidths.

time = latency + bytes / bandwidth, per (algorithm, protocol), and NCCL picks the minimum.
Latency: ring = baseLat + (nsteps - nInter) * intraLat + nInter * interLat with
nInter = nNodes - 1 (twice for allreduce); tree = baseLat + 2 * ((ppn - 1) * intraLat +
log2(nNodes) * interLat). Bandwidth: the slowest intra-node link or the node's NICs,
times the protocol's efficiency, times n / nsteps for rings and 1/2 for trees. The default
constants are NCCL's (research/taccl.md section 7). This is what NCCL would *predict* and pick;
the comparison that counts is the simulation of its ring/tree under the same model.
"""

from __future__ import annotations

import math

from tessel.dialects.coll.model import MIB, CollKind, Topology

BASE_LAT = {"ring": {"LL": 6.6, "LL128": 14.0, "Simple": 8.4}, "tree": {"LL": 6.8, "LL128": 14.0, "Simple": 8.4}}
HW_LAT = {
    "ring": {
        "nvlink": {"LL": 0.6, "LL128": 1.9, "Simple": 3.4},
        "pcie": {"LL": 1.0, "LL128": 2.5, "Simple": 5.7},
        "net": {"LL": 2.7, "LL128": 4.0, "Simple": 14.0},
    },
    "tree": {
        "nvlink": {"LL": 0.6, "LL128": 1.25, "Simple": 4.0},
        "pcie": {"LL": 1.0, "LL128": 2.5, "Simple": 5.7},
        "net": {"LL": 5.0, "LL128": 8.5, "Simple": 14.0},
    },
}
PROTO_BW = {"LL": 0.5, "LL128": 0.92, "Simple": 1.0}


def estimates(topo: Topology, kind: CollKind, size: int) -> dict[tuple[str, str], float]:
    """(algorithm, protocol) -> estimated microseconds."""
    n, ppn, nodes = topo.gpus, topo.gpus_per_node, topo.nodes
    intra = [l for l in topo.links.values() if l.kind in ("nvlink", "switch")]
    intra_kind = "nvlink" if intra else "pcie"
    intra_bw = min((MIB / l.beta for l in intra), default=MIB / 87.0)  # bytes per us
    ib = [l for l in topo.links.values() if l.kind == "ib"]
    nics = max(1, len(topo.nics) // max(nodes, 1))
    bw = intra_bw if nodes == 1 or not ib else min(intra_bw * nics, nics * MIB / min(l.beta for l in ib))
    out = {}
    algos = ["ring"] + (["tree"] if kind == CollKind.ALLREDUCE else [])
    nsteps = 2 * (n - 1) if kind == CollKind.ALLREDUCE else n - 1
    ninter = (2 if kind == CollKind.ALLREDUCE else 1) * (nodes - 1)
    for algo in algos:
        for proto in ("LL", "LL128", "Simple"):
            hw = HW_LAT[algo]
            if algo == "ring":
                lat = BASE_LAT[algo][proto] + (nsteps - ninter) * hw[intra_kind][proto] + ninter * hw["net"][proto]
                alg_bw = bw * PROTO_BW[proto] * n / max(nsteps, 1)
            else:
                lat = BASE_LAT[algo][proto] + 2 * (
                    (ppn - 1) * hw[intra_kind][proto] + math.log2(max(nodes, 1)) * hw["net"][proto]
                )
                alg_bw = bw * PROTO_BW[proto] * 0.5
            out[(algo, proto)] = lat + size / alg_bw
    return out


def choice(topo: Topology, kind: CollKind, size: int) -> tuple[str, float] | None:
    """NCCL's pick and its estimate, or None where NCCL has no tuned algorithm (alltoall)."""
    if kind not in (CollKind.ALLGATHER, CollKind.REDUCE_SCATTER, CollKind.ALLREDUCE):
        return None
    est = estimates(topo, kind, size)
    (algo, proto), t = min(est.items(), key=lambda kv: kv[1])
    return f"{algo}/{proto}", t
