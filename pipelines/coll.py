"""Collectives: a topology and a request -> a verified MSCCL algorithm, timed against NCCL.

    topology      dialects/coll/topologies.py (built-ins), taccl.py (TACCL's JSON), topology.py (IR)
      -> problem  passes/coll/synth/problem.py: flows, candidate links, ports, symmetries
      -> schedule passes/coll/synth/driver.py: sketch search; routing relaxation -> greedy order ->
                  polish (cpsat.py, order.py), the NIC pipeline (nic_pipeline.py), the exact CP-SAT model
      -> plan     dialects/coll/plan.py: which chunk crosses which link when, lowered to threadblocks
                  (merge.py picks how many chunks travel as one message)
      -> checked  dialects/coll/verify.py (symbolic proof), reference.py (the numpy meaning)
      -> timed    dialects/coll/simulate.py; NCCL's ring/tree (targets/nccl/baselines.py) on the same
                  model, NCCL's tuner estimate (tuner.py), the analytic NIC bound (dialects/coll/bounds.py)
      -> out      targets/nccl/msccl_xml.py (MSCCL XML), gloo.py (torch.distributed), timeline.py

`tessel-run --target nccl` (tools/run_coll.py) and `python -m tessel.bench.coll` sit on this
module; the `coll-synthesize` and `coll-verify` passes do the same steps on IR.
"""

from __future__ import annotations

from dataclasses import dataclass

from tessel.dialects.coll.bounds import nic_bound
from tessel.dialects.coll.model import Algorithm, Collective, CollKind, Sketch, Topology
from tessel.dialects.coll.reference import check as check_outputs
from tessel.dialects.coll.reference import random_inputs
from tessel.dialects.coll.reference import run as interpret
from tessel.dialects.coll.simulate import SimResult, simulate
from tessel.dialects.coll.verify import AlgorithmError, check_algorithm
from tessel.ir.diagnostics import TesselError
from tessel.passes.coll.synth.result import Options, Result
from tessel.targets.nccl import baselines, tuner
from tessel.targets.nccl.gloo import Report
from tessel.targets.nccl.msccl_xml import emit

__all__ = [
    "Evaluation",
    "Options",
    "Result",
    "buffer_bytes",
    "evaluate",
    "execute",
    "msccl_xml",
    "nic_bound",
    "problem",
    "synthesize",
    "synthesize_buckets",
    "timeline",
]


def synthesize(
    topo: Topology,
    kind: CollKind,
    size: int,
    sketch: Sketch | None = None,
    opts: Options | None = None,
    name: str | None = None,
    root: int = 0,
) -> Result:
    """An algorithm for `kind` on `topo` at `size` bytes per rank (passes/coll/synth/driver.py).

    The synthesizer and its solvers load on first use, so that tools fail fast on bad input."""
    from tessel.passes.coll.synth.driver import synthesize as run

    return run(topo, kind, size, sketch, opts, name, root)


def synthesize_buckets(
    topo: Topology, kind: CollKind, sizes: list[int], sketch: Sketch | None = None, opts: Options | None = None
) -> list[Result]:
    """One algorithm per size bucket (passes/coll/synth/driver.py)."""
    from tessel.passes.coll.synth.driver import synthesize_buckets as run

    return run(topo, kind, sizes, sketch, opts)


def buffer_bytes(kind: CollKind, ranks: int, chunk_bytes: int, chunkup: int = 1) -> int:
    """TACCL's size (one chunk) as Tessel's (the per-rank buffer: the larger of input and output)."""
    coll = Collective(kind, ranks, chunkup)
    return chunk_bytes * max(coll.input_chunks, coll.output_chunks)


def problem(alg: Algorithm) -> str | None:
    """Why `alg` does not implement its collective (the symbolic proof first, then a run of the
    reference semantics on random data), or None when both agree that it does."""
    kind = alg.collective.kind
    try:
        check_algorithm(alg)
    except AlgorithmError as err:
        return f"algorithm {alg.name} does not implement its {kind}: {err}"
    inputs = random_inputs(alg, 4)
    wrong = check_outputs(alg, inputs, interpret(alg, inputs))
    if wrong:
        return f"algorithm {alg.name}: the reference interpreter disagrees with {kind}: {wrong}"
    return None


@dataclass
class Evaluation:
    """A checked algorithm's simulated time beside NCCL's on the same model."""

    sim: SimResult
    nccl: dict[str, tuple[float, str]]  # family (ring, tree, p2p) -> (us, NCCL's variant)
    tuner: tuple[str, float] | None  # NCCL's own pick and estimate, where it has one
    bound: float | None  # the analytic NIC bound (us) of a multi-node allgather, else None

    @property
    def nccl_best(self) -> float:
        return min(t for t, _ in self.nccl.values())


def evaluate(alg: Algorithm, topo: Topology, chunk_bytes: float, size: int) -> Evaluation:
    """Check `alg` (one TesselError line if it is wrong), simulate it, and time NCCL's algorithms."""
    wrong = problem(alg)
    if wrong:
        raise TesselError(wrong)
    kind = alg.collective.kind
    bound = nic_bound(topo, alg.collective, size) if kind == CollKind.ALLGATHER else None
    return Evaluation(
        simulate(alg, topo, chunk_bytes), baselines.best(topo, kind, size), tuner.choice(topo, kind, size), bound
    )


def msccl_xml(alg: Algorithm) -> str:
    """The MSCCL XML of a checked algorithm."""
    return emit(alg)


def execute(algs: list[Algorithm], elems: int = 256, seed: int = 0, timeout: float = 600.0) -> list[Report]:
    """Run the algorithms on torch.distributed (gloo), one process per rank, and check every output."""
    from tessel.targets.nccl.gloo import execute as run_gloo

    return run_gloo(algs, elems, seed, timeout)


def timeline(sim: SimResult, topo: Topology, path: str, title: str) -> None:
    """A PNG of link usage in a simulation."""
    from tessel.targets.nccl.timeline import plot

    plot(sim, topo, path, title)
