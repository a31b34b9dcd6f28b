"""Real execution: AG, RS, AR and A2A on 8 gloo processes (one per rank, torch CPU) produce the
collective's result in every rank's output buffer. One process group runs all four, so the
~30 s of torch start-up is paid once."""

from __future__ import annotations

from tessel.dialects.coll import topologies as T
from tessel.dialects.coll.model import CollKind
from tessel.passes.coll.synth.driver import Options, synthesize
from tessel.targets.nccl.gloo import execute


def test_eight_ranks_on_gloo():
    topo = T.ndv2()
    algs = [
        synthesize(topo, k, 1 << 16, opts=Options(time_limit=3)).algorithm
        for k in (CollKind.ALLGATHER, CollKind.REDUCE_SCATTER, CollKind.ALLREDUCE, CollKind.ALLTOALL)
    ]
    reports = execute(algs, elems=64, timeout=400)
    assert [r.name for r in reports] == [a.name for a in algs]
    for r in reports:
        assert r.ok, f"{r.name}: {r.error}"
        assert r.ranks == 8
