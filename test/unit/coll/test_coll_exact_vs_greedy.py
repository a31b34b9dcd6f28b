"""The exact CP-SAT model never loses to relaxation + greedy ordering in the model.

The greedy order is re-timed in the models' integer units (`order.in_units`), checked in
Python (`order.check_units`) and by CP-SAT itself with every variable fixed to its hinted
value, then given to the exact and polish models as a complete warm start whose makespan
bounds the search: whatever CP-SAT returns, even when it runs out of time, is at most the
greedy makespan in the same integer units. Cases include REDUCE_SCATTER on DGX-2x2, where
rounding the float greedy times broke the warm start (NSDI'23 TACCL's stage 2 vs stage 3).
"""

from __future__ import annotations

import pytest

from tessel.dialects.coll import topologies as T
from tessel.dialects.coll.model import Collective, CollKind, Group, Link, Sketch, Topology
from tessel.dialects.coll.plan import lower
from tessel.dialects.coll.reference import check, random_inputs, run
from tessel.dialects.coll.verify import check_algorithm
from tessel.passes.coll.synth import cpsat
from tessel.passes.coll.synth.driver import Options, synthesize
from tessel.passes.coll.synth.order import check_units, in_units, list_schedule, units_makespan
from tessel.passes.coll.synth.problem import build_problem


def dgx2_like(nodes: int = 2, per: int = 4) -> Topology:
    """DGX-2's shape at a test's size: `per` GPUs on an NVSwitch per node, a NIC per GPU pair."""
    base = T.dgx2(nodes)
    links, switches, nics = {}, [], []
    for node in range(nodes):
        members = tuple(range(node * per, (node + 1) * per))
        switches.append(Group(f"node{node}.nvswitch", members))
        nics += [Group(f"node{node}.nic{k}", members[2 * k : 2 * k + 2]) for k in range(per // 2)]
        for s in members:
            for d in members:
                if s != d:
                    links[(s, d)] = Link(s, d, "switch", 0.3, 8.0)
    ib = base.links[(0, 16)]
    for s in range(nodes * per):
        for d in range(nodes * per):
            if s // per != d // per:
                links[(s, d)] = Link(s, d, "ib", ib.alpha, ib.beta)
    return Topology(f"dgx2mini{nodes}x{per}", nodes * per, per, links, nics, switches)


CASES = {
    "dgx2x2-reduce_scatter-32KB": (lambda: T.dgx2(2), CollKind.REDUCE_SCATTER, 32 << 10, Sketch(conn="direct-map")),
    "dgx2mini-reduce_scatter-1MB": (dgx2_like, CollKind.REDUCE_SCATTER, 1 << 20, Sketch(conn="direct-map")),
    "dgx2mini-allgather-32KB": (dgx2_like, CollKind.ALLGATHER, 32 << 10, Sketch(conn="direct-map", chunkup=2)),
    "ndv2x2-allgather-1MB": (lambda: T.ndv2(2), CollKind.ALLGATHER, 1 << 20, Sketch(conn="direct-map", chunkup=2)),
    "ring4-allreduce-64KB": (lambda: T.ring(4), CollKind.ALLREDUCE, 64 << 10, None),
}


def _problem(case: str):
    make, kind, size, sketch = CASES[case]
    topo = make()
    chunkup = sketch.chunkup if sketch else 1
    return build_problem(topo, Collective(kind, topo.gpus, chunkup), size, sketch)


def _correct(alg):
    check_algorithm(alg)
    inputs = random_inputs(alg, 2, seed=3)
    assert check(alg, inputs, run(alg, inputs)) is None


@pytest.mark.parametrize("case", sorted(CASES))
def test_greedy_warm_start_is_a_solution_of_the_models(case):
    p = _problem(case)
    relax = cpsat.solve(p, "relax", time_limit=2)
    assert relax.ok
    greedy = list_schedule(p, relax.routes)
    starts = in_units(p, greedy)
    assert check_units(p, starts, symmetry=True) == []
    ms = units_makespan(p, starts) * p.unit
    # CP-SAT with every variable fixed to the hint: feasible, and its makespan is the hint's
    for mode, routes in (("exact", None), ("polish", relax.routes)):
        fixed = cpsat.solve(p, mode, routes=routes, hint=greedy, time_limit=10, fix_to_hint=True)
        assert fixed.status in ("OPTIMAL", "FEASIBLE"), (mode, fixed.status, fixed.notes)
        assert fixed.notes == []
        assert fixed.objective == pytest.approx(ms)


@pytest.mark.parametrize("case", sorted(CASES))
def test_exact_is_never_worse_than_greedy_in_the_model(case):
    p = _problem(case)
    relax = cpsat.solve(p, "relax", time_limit=2)
    greedy = list_schedule(p, relax.routes)
    greedy_units = units_makespan(p, in_units(p, greedy))
    exact = cpsat.solve(p, "exact", hint=greedy, time_limit=3)
    assert exact.ok and exact.plan is not None
    assert exact.hint == pytest.approx(greedy_units * p.unit)
    assert round(exact.objective / p.unit) <= greedy_units
    assert relax.bound <= exact.objective + 1e-6
    # the exact plan is itself a schedule of the model, and a correct algorithm
    assert check_units(p, in_units(p, exact.plan)) == []
    assert units_makespan(p, in_units(p, exact.plan)) <= greedy_units
    _correct(lower(exact.plan, "exact"))


def test_out_of_time_falls_back_to_the_warm_start():
    p = _problem("dgx2x2-reduce_scatter-32KB")
    greedy = list_schedule(p, cpsat.solve(p, "relax", time_limit=2).routes)
    greedy_units = units_makespan(p, in_units(p, greedy))
    exact = cpsat.solve(p, "exact", hint=greedy, time_limit=0.05)
    assert exact.status in ("HINT", "FEASIBLE", "OPTIMAL")
    assert exact.plan is not None and round(exact.objective / p.unit) <= greedy_units
    _correct(lower(exact.plan, "exact"))


def test_unusable_warm_start_is_reported_not_trusted():
    p = _problem("ring4-allreduce-64KB")
    greedy = list_schedule(p, cpsat.solve(p, "relax", time_limit=2).routes)
    bad = greedy.copy()
    bad.sends[0].src, bad.sends[0].dst = 0, 2  # not a link of ring4
    exact = cpsat.solve(p, "exact", hint=bad, time_limit=2)
    assert exact.hint is None and exact.notes and "not a candidate" in exact.notes[0]
    assert exact.status in ("OPTIMAL", "FEASIBLE")


def test_synthesis_on_dgx2_like_reduce_scatter_keeps_exact_at_or_below_greedy():
    r = synthesize(dgx2_like(), CollKind.REDUCE_SCATTER, 1 << 20, Sketch(conn="direct-map"), Options(time_limit=6))
    _correct(r.algorithm)
    st = r.stages
    assert "exact_model" in st and "greedy_model" in st
    assert round(st["exact_model"] / st["unit"]) <= round(st["greedy_model"] / st["unit"])
    assert st["exact_bound"] <= st["exact_model"] + 1e-6
    assert r.time <= st["decomposition"] + 1e-9  # the simulator keeps the faster of the two
    assert r.time <= st["greedy_sim"] + 1e-9  # ... and of greedy and polish: never worse than greedy


def test_check_units_finds_what_rounding_breaks():
    p = _problem("ring4-allreduce-64KB")
    greedy = list_schedule(p, cpsat.solve(p, "relax", time_limit=2).routes)
    starts = in_units(p, greedy)
    assert check_units(p, starts) == []
    (k, t), (k2, _) = sorted(starts.items(), key=lambda kv: kv[1])[-2:]
    late = dict(starts)
    late[k2] = 0  # the last transfer moved to the start: before what it waits for
    assert any("before" in e for e in check_units(p, late))
    missing = dict(starts)
    del missing[k]
    assert any("times" in e for e in check_units(p, missing))
