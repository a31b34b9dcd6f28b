"""Large allgathers on multi-node machines with few NICs reach the analytic NIC bound (issue 22).

The bound (dialects/coll/bounds.py) is what the NICs alone allow; the NIC pipeline
(passes/coll/synth/nic_pipeline.py) keeps every NIC busy in lockstep and must come within
10% of it on every such machine of these tests: the issue's 3-node mesh of 4 GPUs with one
NIC per node (958 us before, 927 reachable, bound 843) and NDv2 x4 (2745 before, 2700
reachable, bound 2523), hub-and-spoke nodes written both ways, two NICs per node. Every
algorithm is checked by the symbolic verifier and by the reference semantics.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tessel.dialects.coll import taccl
from tessel.dialects.coll import topologies as T
from tessel.dialects.coll.bounds import ingress_bound, nic_bound
from tessel.dialects.coll.model import Collective, CollKind, Sketch, Topology
from tessel.dialects.coll.plan import lower
from tessel.dialects.coll.reference import check, random_inputs, run
from tessel.dialects.coll.simulate import simulate
from tessel.dialects.coll.verify import check_algorithm
from tessel.ir.diagnostics import TesselError
from tessel.passes.coll.synth.driver import Options, synthesize
from tessel.passes.coll.synth.nic_pipeline import nic_pipeline
from tessel.passes.coll.synth.order import list_schedule
from tessel.passes.coll.synth.problem import build_problem

FILES = Path(__file__).resolve().parent / "topologies"


def load(name: str, nodes: int) -> Topology:
    return taccl.load_topology_json(str(FILES / name), nodes)


MACHINES = {
    "mesh4 x3": lambda: load("lab-mesh4.json", 3),
    "hub4 x3": lambda: load("rack-hub4.json", 3),
    "hub4 x3 (matrices)": lambda: load("rack-hub4-matrix.json", 3),
    "hub4 x4": lambda: load("rack-hub4.json", 4),
    "pod8 x3 (2 NICs)": lambda: load("pod-hub8-2nics.json", 3),
    "cube x2 (json)": lambda: load("cube-matrix.json", 2),
    "ndv2 x4": lambda: T.ndv2(4),
}


def test_the_bound_is_what_the_nics_allow():
    mesh = load("lab-mesh4.json", 3)
    assert nic_bound(mesh, Collective(CollKind.ALLGATHER, 12), 12 << 20) == pytest.approx(2.6 + 8 * 105)  # 842.6
    assert nic_bound(T.ndv2(4), Collective(CollKind.ALLGATHER, 32), 32 << 20) == pytest.approx(2.6 + 24 * 105)
    # two NICs per node share a node's traffic
    pod = load("pod-hub8-2nics.json", 3)
    assert nic_bound(pod, Collective(CollKind.ALLGATHER, 24), 24 << 20) == pytest.approx(2.6 + 16 * 105 / 2)
    assert nic_bound(T.ndv2(1), Collective(CollKind.ALLGATHER, 8), 8 << 20) is None
    assert nic_bound(mesh, Collective(CollKind.ALLREDUCE, 12), 12 << 20) is None


def _correct(alg):
    check_algorithm(alg)
    inputs = random_inputs(alg, 2, seed=5)
    assert check(alg, inputs, run(alg, inputs)) is None


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_large_allgathers_come_within_ten_percent_of_the_nic_bound(machine):
    topo = MACHINES[machine]()
    size = topo.gpus << 20  # 1 MiB from every rank, TACCL's profile size
    r = synthesize(topo, CollKind.ALLGATHER, size, opts=Options(time_limit=6))
    _correct(r.algorithm)
    bound = nic_bound(topo, Collective(CollKind.ALLGATHER, topo.gpus), size)
    assert bound is not None
    assert r.time <= 1.10 * bound, f"{machine}: {r.time:.1f} us, bound {bound:.1f} ({r.time / bound:.3f}x)"
    if machine == "mesh4 x3":
        assert r.time <= 927  # the reachable time (958 before)
    if machine == "ndv2 x4":
        assert r.time <= 2700  # the reachable time (2745 before)


def test_the_pipeline_keeps_every_nic_busy_in_lockstep():
    topo = load("lab-mesh4.json", 3)
    p = build_problem(topo, Collective(CollKind.ALLGATHER, 12, 1), 12 << 20, Sketch(chunkup=1))
    plan = nic_pipeline(p)
    assert plan is not None and plan.serialize_ports
    alg = lower(plan, "pipeline")
    _correct(alg)
    sim = simulate(alg, topo, plan.chunk_bytes)
    assert sim.time == pytest.approx(plan.makespan)  # the simulator runs the plan as planned
    per = topo.gpus_per_node
    for node in range(topo.nodes):
        for side in (0, 1):  # transmit, receive
            ib = sorted(
                (t.start, t.end)
                for t in sim.transfers
                if t.src // per != t.dst // per and (t.src if side == 0 else t.dst) // per == node
            )
            assert len(ib) == 8  # the 8 chunks of the other two nodes, or of this node to them
            assert ib[0][0] == 0 and all(b[0] == pytest.approx(a[1]) for a, b in zip(ib, ib[1:]))  # no gap
    # without the port order the first-come-first-served NICs collide and idle
    plan.serialize_ports = False
    assert simulate(lower(plan, "unordered"), topo, plan.chunk_bytes).time > sim.time * 1.05


def test_the_pipeline_respects_a_users_sketch():
    topo = load("rack-hub4.json", 3)
    relay = Sketch(name="relay", conn=[(0, 1)], chunkup=1)
    p = build_problem(topo, Collective(CollKind.ALLGATHER, 12, 1), 12 << 20, relay)
    plan = nic_pipeline(p)
    assert plan is not None
    per = topo.gpus_per_node
    assert {(s.src % per, s.dst % per) for s in plan.sends if s.src // per != s.dst // per} == {(0, 1)}
    _correct(lower(plan, "relay"))
    # a sketch that splits a NIC's chunks between two senders leaves the pipeline out
    narrow = Sketch(name="narrow", conn=[(0, 1), (1, 1)], senders={0: (0, 1), 1: (2, 3)}, chunkup=1)
    assert nic_pipeline(build_problem(topo, Collective(CollKind.ALLGATHER, 12, 1), 12 << 20, narrow)) is None


def test_machines_bound_inside_their_nodes_do_not_get_the_pipeline():
    """DGX-2 has a NIC per GPU pair: its NVSwitch ports, not its NICs, bound an allgather (the
    ingress bound is above the NIC bound), and the pipeline is not tried there."""
    ag = Collective(CollKind.ALLGATHER, 32)
    assert ingress_bound(T.dgx2(2), ag, 32 << 20) > nic_bound(T.dgx2(2), ag, 32 << 20)
    ag12 = Collective(CollKind.ALLGATHER, 12)
    assert ingress_bound(load("lab-mesh4.json", 3), ag12, 12 << 20) < nic_bound(
        load("lab-mesh4.json", 3), ag12, 12 << 20
    )
    slow = T.machine("slowhub", T.hub_node(4, 0.3, 200.0), 4, 2, hub=True, nics_per_node=2)
    r = synthesize(slow, CollKind.ALLGATHER, 8 << 20, opts=Options(time_limit=3))
    assert r.plan.note != "nic pipeline"
    assert any("NIC pipeline: not tried, slowhub is bound inside its nodes" in line for line in r.log)
    _correct(r.algorithm)


def test_relaying_inside_a_node_is_spread_over_its_gpus():
    """On a switch every arrival ties; the trees used to take the lowest-numbered GPU as an early
    relay of every chunk of its node: on 8-GPU hubs (23 us/MiB ports) with two NICs per node
    GPU 0 sent 51 chunks through its switch port where each GPU must receive 23 (1188 us busy,
    1321 us in all, 1.57x the NIC bound). Ties now go to the GPUs that have relayed least."""
    topo = T.machine("hub8", T.hub_node(8, 0.3, 23.0), 8, 3, hub=True, nics_per_node=2)
    ag = Collective(CollKind.ALLGATHER, 24, 1)
    plan = nic_pipeline(build_problem(topo, ag, 24 << 20, Sketch(chunkup=1)))
    assert plan is not None
    alg = lower(plan, "pipeline")
    _correct(alg)
    switch = [s for s in plan.sends if topo.links[(s.src, s.dst)].kind == "switch"]
    per_gpu = [sum(1 for s in switch if s.src == g) for g in range(topo.gpus)]
    mean = len(switch) / topo.gpus
    assert max(per_gpu) <= 1.5 * mean, per_gpu
    bound = nic_bound(topo, ag, 24 << 20)
    assert bound is not None
    assert simulate(alg, topo, plan.chunk_bytes).time <= 1.2 * bound  # 977 us (1.16x); 1321 (1.57x) before


def test_an_owners_chunks_travel_as_one_message_but_the_last_ones():
    """With chunkup 4 every chunk paying InfiniBand's alpha costs the NICs 32 alphas; one message
    per owner and round costs 8 but lands a whole MiB at once, which then spreads inside the
    node after the NICs finish. `tail=1` merges all but each NIC's last owner of the last round:
    11 messages a NIC, gap-free, and the list scheduler times a message as one send, so the
    simulator runs the plan as planned."""
    topo = load("pod-hub8-2nics.json", 3)
    p = build_problem(topo, Collective(CollKind.ALLGATHER, 24, 4), 24 << 20, Sketch(chunkup=4))
    bound = nic_bound(topo, Collective(CollKind.ALLGATHER, 24), 24 << 20)
    single, merged = nic_pipeline(p), nic_pipeline(p, tail=1)
    assert single is not None and merged is not None
    assert single.groups == 0 and merged.groups == 6 * 7  # 6 NICs, 7 merged owner-rounds each
    alg = lower(merged, "merged")
    _correct(alg)
    sim = simulate(alg, topo, merged.chunk_bytes)
    assert sim.time == pytest.approx(merged.makespan)
    per = topo.gpus_per_node
    for sender in {s.src for s in merged.sends if s.src // per != s.dst // per}:
        ib = sorted(
            (t.start, t.end, t.chunks) for t in sim.transfers if t.src == sender and t.dst // per != sender // per
        )
        assert [n for _, _, n in ib] == [4] * 7 + [1] * 4
        assert ib[0][0] == 0 and all(b[0] == pytest.approx(a[1]) for a, b in zip(ib, ib[1:]))  # no gap
    unmerged = simulate(lower(single, "single"), topo, single.chunk_bytes).time
    assert sim.time < unmerged - 40  # 21 alphas of 2.6 us saved, less the longer drain
    assert sim.time <= 1.05 * bound


def test_a_message_that_waits_for_itself_is_refused():
    """Chunk 0 crosses 0 -> 2 -> 1 -> 3 and chunk 1 crosses 1 -> 3 -> 0 -> 2; one message on 0 -> 2
    holding both would wait for chunk 1 at 0, which waits for the message on 1 -> 3 holding both,
    which waits for chunk 0 at 1, which waits for the first message."""
    topo = load("rack-hub4.json", 2)
    p = build_problem(topo, Collective(CollKind.ALLGATHER, 8, 1), 8 << 20, Sketch(chunkup=1))
    routes = {0: [(0, 2), (2, 1), (1, 3)], 1: [(1, 3), (3, 0), (0, 2)]}
    list_schedule(p, routes, messages={(0, (0, 2)): 0, (1, (0, 2)): 0})  # one message alone is fine
    with pytest.raises(TesselError, match="waits for"):
        list_schedule(p, routes, messages={(0, (0, 2)): 0, (1, (0, 2)): 0, (1, (1, 3)): 1, (0, (1, 3)): 1})
