"""`tessel.coll`: synthesize a collective for a topology and a buffer size, then check it,
time it against NCCL, write it as MSCCL XML or run it on torch.distributed (gloo).

    import tessel
    ag = tessel.coll.synthesize("ring4", "allgather", "64KB", time_limit=5)
    ag.verify()                      # symbolic proof + the reference interpreter
    print(ag.simulate())             # simulated time beside NCCL's ring and tree
    xml = ag.to_msccl_xml()          # for MSCCL / msccl-tools
    ag.execute()                     # one process per rank on gloo, every output checked

A topology is a built-in name (`ndv2`, `ndv2x2`, `dgx2`, `ring8`, ...), TACCL's profiled
topology JSON, or a `tessel.dialects.coll.model.Topology`. Sizes are bytes or strings such as
`"1MB"` (1KB = 1024 bytes, nccl-tests' convention) and count the per-rank buffer: the larger of
a rank's input and output. `tessel-run --target nccl` is a command-line layer over this module.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the solvers and xDSL load on first use (import tessel stays cheap)
    from tessel.dialects.coll.model import Algorithm, CollKind, Sketch, Topology
    from tessel.passes.coll.synth.result import Result
    from tessel.pipelines.coll import Evaluation
    from tessel.targets.nccl.gloo import Report

from tessel.runtime.errors import TesselError

__all__ = ["Collective", "Simulation", "human_size", "parse_size", "synthesize", "topology"]

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20}
_UNITS |= {"G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30}


def parse_size(size: str | int, flag: str = "size") -> int:
    """Bytes from `1024`, `"64KB"`, `"1MB"` or `"1GB"` (powers of 1024).

    >>> parse_size("64KB")
    65536
    """
    if isinstance(size, int):
        text = str(size)
    else:
        text = size
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).upper() not in _UNITS:
        raise TesselError(f"{flag} {text}: expected a size such as 1024, 64KB, 1MB or 1GB")
    value = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if value < 1:
        raise TesselError(f"{flag} {text}: the size must be at least 1 byte")
    return value


def human_size(size: float) -> str:
    """The shortest of `1MB`, `64KB`, `1.5GB`, `100B` for a byte count.

    >>> human_size(65536)
    '64KB'
    """
    for unit, factor in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= factor:
            v = size / factor
            return f"{v:g}{unit}" if v == int(v) else f"{v:.3g}{unit}"
    return f"{size:g}B"


def topology(spec: str | Topology, nodes: int | None = None) -> Topology:
    """A validated topology from a built-in name, a TACCL topology JSON (with `nodes` nodes,
    default 1), or a `Topology` as it is.

    >>> topology("ndv2x2").gpus
    16
    """
    from tessel.dialects.coll.model import Topology
    from tessel.dialects.coll.taccl import load_topology_json
    from tessel.dialects.coll.topologies import BUILTIN_NAMES, builtin

    if isinstance(spec, Topology):
        topo = spec
    elif spec.endswith(".json"):
        topo = load_topology_json(spec, nodes)
    else:
        found = builtin(spec)
        if found is None:
            if os.path.exists(spec):
                raise TesselError(f"{spec}: give a TACCL topology .json, a coll .mlir module or a built-in name")
            raise TesselError(f"unknown topology '{spec}': not a file and not a built-in ({BUILTIN_NAMES})")
        if nodes is not None:
            raise TesselError("nodes apply to TACCL topology JSON; built-ins name their nodes (ndv2x4)")
        topo = found
    topo.validate()
    return topo


def smaller_machine(spec: str | Topology, topo: Topology, ranks: int, flag: str = "ranks") -> Topology:
    """The same kind of machine with `ranks` GPUs (fewer nodes), for small real runs;
    `flag` names the ranks in the error (the CLI's `--ranks`)."""
    if ranks == topo.gpus:
        return topo
    per = topo.gpus_per_node
    if ranks % per or not isinstance(spec, str) or spec.endswith(".mlir"):
        raise TesselError(
            f"{flag} {ranks} does not fit {topo.name} ({topo.gpus} GPUs in nodes of {per}); give {flag} {topo.gpus} "
            f"or a multiple of {per} with a built-in or JSON topology"
        )
    nodes = ranks // per
    if spec.endswith(".json"):
        from tessel.dialects.coll.taccl import load_topology_json

        return load_topology_json(spec, nodes)
    from tessel.dialects.coll.topologies import builtin

    base = re.sub(r"x\d+$", "", topo.name)
    small = builtin(base if nodes == 1 else f"{base}x{nodes}")
    assert small is not None
    return small


@dataclass(frozen=True)
class Simulation:
    """The algorithm's simulated time beside NCCL's algorithms on the same alpha-beta model."""

    time_us: float
    nccl_us: dict[str, float]  # family (ring, tree, p2p) -> simulated microseconds
    bottleneck: str  # the busiest link or port
    evaluation: Evaluation

    @property
    def speedup(self) -> float:
        """NCCL's best time over this algorithm's (> 1: faster than NCCL)."""
        return min(self.nccl_us.values()) / self.time_us

    def __str__(self) -> str:
        nccl = ", ".join(f"{k} {v:.2f} us" for k, v in sorted(self.nccl_us.items()))
        return f"{self.time_us:.2f} us simulated; NCCL {nccl}; {self.speedup:.2f}x over NCCL's best"


class Collective:
    """A synthesized (or given) collective algorithm on a topology, at a buffer size."""

    def __init__(
        self, algorithm: Algorithm, topo: Topology, size: int, result: Result | None = None, source: str | Topology = ""
    ):
        self.algorithm = algorithm
        self.topology = topo
        self.size = size
        self.result = result  # the synthesis log (sketches tried, stages), when synthesized
        self._source = source or topo

    @property
    def kind(self) -> str:
        """The collective's name: allgather, reduce_scatter, allreduce, alltoall, broadcast, reduce."""
        return str(self.algorithm.collective.kind.value)

    @property
    def ranks(self) -> int:
        return int(self.algorithm.collective.ranks)

    @property
    def chunk_bytes(self) -> float:
        return float(self.algorithm.collective.chunk_bytes(self.size))

    def verify(self) -> None:
        """Prove the algorithm implements its collective (chunk propagation, no races) and run
        the reference interpreter on random data; a TesselError names what is wrong."""
        from tessel.pipelines.coll import problem

        wrong = problem(self.algorithm)
        if wrong:
            raise TesselError(wrong)

    def simulate(self) -> Simulation:
        """Check, then simulate the algorithm and NCCL's on the topology's alpha-beta model."""
        from tessel.pipelines.coll import evaluate

        ev = evaluate(self.algorithm, self.topology, self.chunk_bytes, self.size)
        return Simulation(ev.sim.time, {k: t for k, (t, _) in ev.nccl.items()}, ev.sim.bottleneck()[0], ev)

    def to_msccl_xml(self) -> str:
        """The algorithm as MSCCL XML (msccl-tools' format), after checking it."""
        from tessel.pipelines.coll import msccl_xml

        self.verify()
        return msccl_xml(self.algorithm)

    def to_ir(self) -> str:
        """The topology and the algorithm as `coll` IR text."""
        from xdsl.dialects.builtin import ModuleOp

        from tessel.dialects.coll import algorithm_op, topology_op
        from tessel.ir.source import print_module

        return print_module(ModuleOp([topology_op(self.topology), algorithm_op(self.algorithm)]))

    def for_ranks(self, ranks: int, time_limit: float = 30.0) -> Collective:
        """The same collective synthesized again on the same kind of machine with `ranks` GPUs."""
        if ranks == self.ranks:
            return self
        small = smaller_machine(self._source, self.topology, ranks)
        kind = self.algorithm.collective
        return synthesize(small, kind.kind.value, self.size, time_limit=time_limit, root=kind.root)

    def execute(self, ranks: int | None = None, elems: int = 256, timeout: float = 600.0) -> Report:
        """Run on torch.distributed's gloo backend, one process per rank, `elems` float32 per
        chunk, and check every rank's output; `ranks` below the topology's GPUs re-synthesizes
        for fewer nodes first. Needs torch."""
        if elems < 1:
            raise TesselError(f"elems must be positive, got {elems}")
        target = self.for_ranks(ranks) if ranks is not None else self
        if target.ranks < 2:
            raise TesselError(f"a collective needs at least 2 ranks, got {target.ranks}")
        target.verify()
        try:
            import torch.distributed  # noqa: F401
        except ImportError:
            raise TesselError("executing a collective needs torch (pip install torch)") from None
        from tessel.pipelines.coll import execute

        (report,) = execute([target.algorithm], elems, timeout=timeout)
        return report

    def __repr__(self) -> str:
        return f"<Collective {self.kind} of {human_size(self.size)} on {self.topology.name} ({self.ranks} ranks)>"


def synthesize(
    topo: str | Topology,
    collective: str | CollKind,
    size: str | int = "1MB",
    *,
    sketch: str | Sketch | None = None,
    time_limit: float = 30.0,
    exact: bool | None = None,
    root: int = 0,
    nodes: int | None = None,
) -> Collective:
    """Synthesize `collective` on `topo` for a per-rank buffer of `size` (TACCL's method:
    a communication sketch, a routing relaxation, an ordering, and an exact CP-SAT model on
    small machines), within `time_limit` seconds. `sketch`: a TACCL sketch JSON (default:
    search sketches).

    >>> ag = synthesize("ring4", "allgather", "64KB", time_limit=5)  # doctest: +SKIP
    >>> ag.simulate().speedup > 0  # doctest: +SKIP
    True
    """
    from tessel.dialects.coll.model import CollKind
    from tessel.dialects.coll.taccl import check_sketch, load_sketch_json
    from tessel.pipelines.coll import Options
    from tessel.pipelines.coll import synthesize as run

    try:
        kind = CollKind(collective)
    except ValueError:
        raise TesselError(
            f"unknown collective '{collective}' (collectives: {', '.join(k.value for k in CollKind)})"
        ) from None
    if time_limit <= 0:
        raise TesselError(f"time_limit must be positive, got {time_limit}")
    sk: Sketch | None = load_sketch_json(sketch) if isinstance(sketch, str) else sketch
    if nodes is None and sk is not None:
        nodes = sk.nnodes
    machine = topology(topo, nodes)
    if sk is not None:
        check_sketch(sk, machine, sketch if isinstance(sketch, str) else "the sketch")
    if not 0 <= root < machine.gpus:
        raise TesselError(f"root {root} is out of range 0..{machine.gpus - 1}")
    nbytes = parse_size(size)
    result = run(machine, kind, nbytes, sk, Options(time_limit=time_limit, exact=exact), root=root)
    return Collective(result.algorithm, machine, result.size, result, topo)
