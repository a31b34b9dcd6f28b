"""Real execution: AG, RS, AR and A2A on 8 gloo processes (one per rank, torch CPU) produce the
collective's result in every rank's output buffer, and so does the NIC pipeline's allgather on
two 4-GPU nodes, whose port order is kept by dependencies between threadblocks. One process
group runs all five, so the ~30 s of torch start-up is paid once."""

from __future__ import annotations

from pathlib import Path

from tessel.dialects.coll import taccl
from tessel.dialects.coll import topologies as T
from tessel.dialects.coll.model import Collective, CollKind, Sketch
from tessel.dialects.coll.plan import lower
from tessel.passes.coll.synth.driver import Options, synthesize
from tessel.passes.coll.synth.nic_pipeline import nic_pipeline
from tessel.passes.coll.synth.problem import build_problem
from tessel.targets.nccl.gloo import execute

FILES = Path(__file__).resolve().parent / "topologies"


def test_eight_ranks_on_gloo():
    topo = T.ndv2()
    algs = [
        synthesize(topo, k, 1 << 16, opts=Options(time_limit=3)).algorithm
        for k in (CollKind.ALLGATHER, CollKind.REDUCE_SCATTER, CollKind.ALLREDUCE, CollKind.ALLTOALL)
    ]
    racks = taccl.load_topology_json(str(FILES / "rack-hub4.json"), 2)
    plan = nic_pipeline(build_problem(racks, Collective(CollKind.ALLGATHER, 8, 2), 8 << 20, Sketch(chunkup=2)))
    assert plan is not None
    algs.append(lower(plan, "allgather_nic_pipeline"))
    reports = execute(algs, elems=64, timeout=400)
    assert [r.name for r in reports] == [a.name for a in algs]
    for r in reports:
        assert r.ok, f"{r.name}: {r.error}"
        assert r.ranks == 8
