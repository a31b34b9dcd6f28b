"""Synthesis, differentially: every algorithm is checked by the symbolic verifier and by the
numpy interpreter against the collective's definition; exact never loses to the decomposition
in the model; REDUCE_SCATTER's direct model agrees with time-reversed ALLGATHER on symmetric
machines; the simulator agrees with the closed form of NCCL's ring."""

from __future__ import annotations

from collections import Counter

import pytest

from tessel.dialects.coll import topologies as T
from tessel.dialects.coll.model import Collective, CollKind, Sketch
from tessel.dialects.coll.plan import lower
from tessel.dialects.coll.reference import check, random_inputs, run
from tessel.dialects.coll.simulate import simulate
from tessel.dialects.coll.verify import check_algorithm
from tessel.ir.diagnostics import TesselError
from tessel.passes.coll.synth import cpsat
from tessel.passes.coll.synth.driver import Options, buckets, synthesize, synthesize_buckets
from tessel.passes.coll.synth.order import in_units, list_schedule, shortest_routes, units_makespan
from tessel.passes.coll.synth.problem import build_problem
from tessel.targets.nccl import baselines

KINDS = [
    CollKind.ALLGATHER,
    CollKind.REDUCE_SCATTER,
    CollKind.ALLREDUCE,
    CollKind.ALLTOALL,
    CollKind.BROADCAST,
    CollKind.REDUCE,
]


def _correct(alg):
    check_algorithm(alg)
    inputs = random_inputs(alg, 3, seed=7)
    assert check(alg, inputs, run(alg, inputs)) is None


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("topo", ["ring4", "ndv2"])
def test_synthesized_algorithms_are_correct(topo, kind):
    r = synthesize(T.builtin(topo), kind, 1 << 16, opts=Options(time_limit=4))
    _correct(r.algorithm)
    assert r.time == pytest.approx(simulate(r.algorithm, T.builtin(topo), r.chunk_bytes).time)


@pytest.mark.parametrize("kind", [CollKind.ALLGATHER, CollKind.ALLREDUCE, CollKind.ALLTOALL])
@pytest.mark.parametrize("size", [1 << 10, 1 << 24])
def test_ndv2x2_beats_or_matches_nccl(kind, size):
    topo = T.ndv2(2)
    r = synthesize(topo, kind, size, opts=Options(time_limit=6))
    _correct(r.algorithm)
    nccl = min(t for t, _ in baselines.best(topo, kind, size).values())
    assert r.time <= nccl * 1.0001


def test_small_allgather_on_ndv2x2_uses_merged_ib_messages():
    topo = T.ndv2(2)
    r = synthesize(topo, CollKind.ALLGATHER, 1 << 10, Sketch(conn=[(0, 1)]), Options(time_limit=4))
    ib = [
        s
        for g in r.algorithm.gpus
        for tb in g.tbs
        if tb.send >= 0 and topo.links[(g.rank, tb.send)].kind == "ib"
        for s in tb.steps
    ]
    assert ib and max(s.count for s in ib) > 1
    ring = baselines.best(topo, CollKind.ALLGATHER, 1 << 10)["ring"][0]
    assert ring / r.time > 5


def test_exact_is_never_worse_than_greedy_in_the_model():
    topo = T.ndv2(2)
    p = build_problem(topo, Collective(CollKind.ALLGATHER, 16, 2), 1 << 20, Sketch(conn="direct-map", chunkup=2))
    relax = cpsat.solve(p, "relax", time_limit=5)
    greedy = list_schedule(p, relax.routes)
    exact = cpsat.solve(p, "exact", hint=greedy, time_limit=10)
    assert relax.ok and exact.ok
    assert relax.bound <= exact.objective + 1e-6
    # greedy re-timed in the model's integer units is the warm start and an upper bound
    assert round(exact.objective / p.unit) <= units_makespan(p, in_units(p, greedy))
    _correct(lower(exact.plan, "exact"))


def test_reduce_scatter_is_time_reversed_allgather_on_a_symmetric_machine():
    topo = T.ring(6)
    ag = build_problem(topo, Collective(CollKind.ALLGATHER, 6), 1 << 20)
    rs = build_problem(topo, Collective(CollKind.REDUCE_SCATTER, 6), 1 << 20)
    a = cpsat.solve(ag, "exact", time_limit=20, workers=2)
    b = cpsat.solve(rs, "exact", time_limit=20, workers=2)
    assert a.status == b.status == "OPTIMAL"
    assert a.objective == pytest.approx(b.objective)


def test_symmetry_ties_variables_without_changing_the_optimum():
    topo = T.ndv2(2)
    p = build_problem(topo, Collective(CollKind.ALLGATHER, 16), 1 << 20, Sketch(conn=[(0, 1)]))
    assert p.perms, "node rotation should be found"
    with_sym = cpsat.solve(p, "exact", time_limit=10)
    without = cpsat.solve(p, "exact", time_limit=10, symmetry=False)
    assert with_sym.status == without.status == "OPTIMAL"
    assert with_sym.objective == pytest.approx(without.objective)


def test_ring_simulation_matches_closed_form():
    topo = T.ndv2(2)
    size = 1 << 20
    plan = baselines.ring_plan(topo, CollKind.ALLGATHER, size, 1)
    t = simulate(lower(plan, "ring"), topo, plan.chunk_bytes).time
    ib = topo.links[(4, 8)]
    assert t == pytest.approx(15 * ib.cost(size / 16))


def test_nic_port_serialises_transfers():
    topo = T.ndv2(2)
    plan = baselines.p2p_plan(topo, 1 << 20)
    sim = simulate(lower(plan, "p2p"), topo, plan.chunk_bytes)
    tx = [t for t in sim.transfers if topo.links[(t.src, t.dst)].kind == "ib" and t.src < 8]
    tx.sort(key=lambda t: t.start)
    assert len(tx) == 64
    assert all(b.start >= a.end - 1e-9 for a, b in zip(tx, tx[1:]))  # one at a time through the NIC


def test_infeasible_sketch_is_one_line():
    topo = T.ndv2(2)
    with pytest.raises(
        TesselError,
        match=r"^error: infeasible: rank \d+ cannot receive chunk 0 of rank 0: no path over the links the sketch allows$",
    ):
        synthesize(topo, CollKind.ALLGATHER, 1 << 20, Sketch(conn=[]), Options(time_limit=2))


def test_buckets_cover_all_sizes():
    assert buckets([1024, 1 << 20, 1 << 30]) == [(0, 32768), (32768, 33554432), (33554432, None)]
    rs = synthesize_buckets(T.ring(4), CollKind.ALLGATHER, [1024, 1 << 20], opts=Options(time_limit=2))
    assert [(r.algorithm.min_bytes, r.algorithm.max_bytes) for r in rs] == [(0, 32768), (32768, None)]


def test_the_fallback_routes_spread_over_the_nics():
    """When the routing relaxation runs out of time (a loaded machine), shortest_routes is the
    routing: among equally cheap paths it takes the least busy link or port, so DGX-2 x2's
    chunks leave through all 16 NICs rather than all through the first (1721 us before)."""
    topo = T.dgx2(2)
    p = build_problem(topo, Collective(CollKind.ALLGATHER, 32), 32 << 20, Sketch(conn="direct-map"))
    routes = shortest_routes(p)
    tx = Counter(
        r
        for es in routes.values()
        for e in es
        if topo.links[e].kind == "ib"
        for r in p.resources[e]
        if r.endswith(".tx")
    )
    assert len(tx) == 16 and max(tx.values()) <= 4
    plan = list_schedule(p, routes)
    assert plan.makespan < 4 * 107.6 + 30
    _correct(lower(plan, "fallback"))
