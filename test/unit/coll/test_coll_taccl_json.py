"""TACCL's topology files on inputs we did not write (issue 22): the form is read from the fields
whatever the name, both of TACCL's forms of one machine give the same synthesis problem and the
same times, a 1-node file needs no NIC fields, and every malformed or self-contradicting file
is one error line naming the file and the field.

The files in topologies/ are written from TACCL's format description (its INPUT_GUIDE and
example profiles), with names TACCL's examples do not use.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tessel.dialects.coll import taccl
from tessel.dialects.coll import topologies as T
from tessel.dialects.coll.model import Collective, CollKind, LinkKind, Topology
from tessel.dialects.coll.plan import lower
from tessel.dialects.coll.simulate import simulate
from tessel.ir.diagnostics import TesselError
from tessel.passes.coll.synth.problem import build_problem
from tessel.targets.nccl import baselines

FILES = Path(__file__).resolve().parent / "topologies"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "coll"


def load(name: str, nodes: int | None = None) -> Topology:
    return taccl.load_topology_json(str(FILES / name), nodes)


def _costs(topo: Topology) -> dict[tuple[int, int], tuple[str, float, float]]:
    """What the cost model sees of each link (lanes are a label: no cost depends on them)."""
    return {k: (link.kind.value, link.alpha, link.beta) for k, link in topo.links.items()}


# ----------------------------------------------------------------------------- by the fields


@pytest.mark.parametrize(
    "name,nodes,gpus,kinds,switches,nics",
    [
        ("rack-hub4.json", 3, 12, {"switch", "ib"}, 3, 3),
        ("rack-hub4-matrix.json", 3, 12, {"switch", "ib"}, 3, 3),
        ("lab-mesh4.json", 3, 12, {"nvlink", "ib"}, 0, 3),
        ("cube-classes.json", 4, 32, {"nvlink", "pcie", "ib"}, 0, 4),
        ("cube-matrix.json", 2, 16, {"nvlink", "pcie", "ib"}, 0, 2),
        ("pod-hub8-2nics.json", 3, 24, {"switch", "ib"}, 3, 6),
        ("workstation.json", None, 3, {"nvlink", "pcie"}, 0, 0),
    ],
)
def test_files_load_by_their_fields_whatever_their_name(name, nodes, gpus, kinds, switches, nics):
    topo = load(name, nodes)
    topo.validate()
    assert topo.gpus == gpus
    assert {link.kind.value for link in topo.links.values()} == kinds
    assert len(topo.switches) == switches and len(topo.nics) == nics


def test_the_name_decides_nothing(tmp_path):
    data = json.loads((EXAMPLES / "ndv2-1MB.json").read_text())
    reference = taccl.load_topology_json(str(EXAMPLES / "ndv2-1MB.json"), 2)
    for name in ("custom", "DGX2_but_not_really", "zzz", "HubAndSpoke"):
        topo = taccl.load_topology_json(_write(tmp_path, dict(data, name=name)), 2)
        assert topo.links == reference.links and topo.name == f"{name}x2"


def test_one_class_is_a_hub_and_two_are_the_cube_mesh():
    hub = load("rack-hub4.json")
    assert [g.gpus for g in hub.switches] == [(0, 1, 2, 3)]
    assert all(link.kind == LinkKind.SWITCH and link.beta == 23 for link in hub.links.values())
    cube = load("cube-classes.json", 2)
    assert _costs(cube) == _costs(T.ndv2(2))  # betas [46, 23]: the smaller one is the double NVLink


def test_a_one_node_file_needs_no_nic_fields():
    topo = load("workstation.json")
    assert topo.nodes == 1 and topo.nics == []
    assert topo.links[(1, 2)].kind == LinkKind.PCIE  # 1 and 2 share no NVLink
    assert topo.links[(0, 1)].alpha == pytest.approx(0.7) and topo.links[(0, 1)].beta == 46


def test_an_asymmetric_matrix_is_read_dst_src(tmp_path):
    data = {"name": "oneway", "links": [[0, 1], [0, 0]], "betas": [[0, 10], [0, 0]], "alpha": 0.5}
    topo = taccl.load_topology_json(_write(tmp_path, data))
    assert topo.links[(1, 0)].kind == LinkKind.NVLINK  # links[dst 0][src 1]
    assert topo.links[(0, 1)].kind == LinkKind.PCIE


# ----------------------------------------------------------------------------- both forms, one machine


@pytest.mark.parametrize(
    "classes,matrices,nodes",
    [("rack-hub4.json", "rack-hub4-matrix.json", 3), ("cube-classes.json", "cube-matrix.json", 2)],
)
def test_both_forms_of_a_machine_give_the_same_results(classes, matrices, nodes):
    a, b = load(classes, nodes), load(matrices, nodes)
    assert _costs(a) == _costs(b)
    assert a.ports == b.ports
    coll = Collective(CollKind.ALLGATHER, a.gpus, 1)
    pa, pb = build_problem(a, coll, 12 << 20), build_problem(b, coll, 12 << 20)
    assert (pa.cost, pa.edges, pa.dur, pa.resources) == (pb.cost, pb.edges, pb.dur, pb.resources)
    assert [sigma for sigma, _ in pa.perms] == [sigma for sigma, _ in pb.perms]
    for kind in (CollKind.ALLGATHER, CollKind.ALLREDUCE):
        assert baselines.best(a, kind, 1 << 20) == baselines.best(b, kind, 1 << 20)
    plan = baselines.ring_plan(a, CollKind.ALLGATHER, 12 << 20, 2)
    alg = lower(plan, "ring")
    assert simulate(alg, a, plan.chunk_bytes).time == simulate(alg, b, plan.chunk_bytes).time


# ----------------------------------------------------------------------------- malformed: one line each


def _write(tmp_path, data, name="f.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


CLASSES = json.loads((EXAMPLES / "ndv2-1MB.json").read_text())
MATRIX = json.loads((FILES / "lab-mesh4.json").read_text())


@pytest.mark.parametrize(
    "base,change,nodes,message",
    [
        (CLASSES, {"name": 3}, 2, "field 'name': expected a non-empty string, got 3"),
        (CLASSES, {"alpha": "fast"}, 2, "field 'alpha': expected a number, got \"fast\""),
        (CLASSES, {"alpha": -1}, 2, "field 'alpha': must be >= 0, got -1"),
        (
            CLASSES,
            {"links": MATRIX["links"]},
            2,
            "field 'node_betas_list': the file also gives 'links': a node is either",
        ),
        (
            CLASSES,
            {"node_betas_list": [23, 46, 92], "node_invbws_list": [23, 46, 92]},
            2,
            "field 'node_betas_list': 3 link classes; TACCL's class form has one",
        ),
        (CLASSES, {"node_betas_list": []}, 2, "field 'node_betas_list': expected a non-empty list of positive numbers"),
        (
            CLASSES,
            {"gpus_per_node": 4},
            2,
            "field 'gpus_per_node': two link classes are NDv2's hybrid cube-mesh of 8 GPUs, got 4",
        ),
        (CLASSES, {"nics_per_node": 3}, 2, "field 'nics_per_node': must divide the 8 GPUs of a node, got 3"),
        (CLASSES, {"remote_beta": 0}, 2, "field 'remote_beta': must be > 0, got 0"),
        (CLASSES, {"node_invbws_list": [23]}, 2, "field 'node_invbws_list': 1 totals for the 2 link classes"),
        (
            CLASSES,
            {"node_invbws_list": [20, 46]},
            2,
            "field 'node_invbws_list': total cost 20 is below its class's beta 23",
        ),
        (CLASSES, {"remote_invbw": 100}, 2, "field 'remote_invbw': total cost 100 is below remote_beta 105"),
        (CLASSES, {"nics_per_node": None}, 2, "field 'nics_per_node': expected an integer, got null"),
        (CLASSES, {"remote_alpha": None}, 2, "field 'remote_alpha': expected a number, got null"),
        (MATRIX, {"betas": None}, 2, "field 'betas': expected a square matrix"),
        (MATRIX, {"gpus_per_node": 5}, 2, "field 'gpus_per_node': 5 GPUs, but the matrices are 4x4"),
        (
            MATRIX,
            {"links": [[1, 2, 1, 2], [2, 0, 2, 1], [1, 2, 0, 2], [2, 1, 2, 0]]},
            2,
            "field 'links': GPU 0 links to itself",
        ),
        (
            MATRIX,
            {"links": [[0, 2, 0, 2], [2, 0, 2, 1], [1, 2, 0, 2], [2, 1, 2, 0]]},
            2,
            "field 'betas': 2 -> 0 has a cost but 'links' has no link there",
        ),
        (
            MATRIX,
            {"links": [[0, 1.5, 1, 2], [2, 0, 2, 1], [1, 2, 0, 2], [2, 1, 2, 0]]},
            2,
            "field 'links': link counts are whole numbers",
        ),
        (
            MATRIX,
            {"invbws": [[0, 20, 46.3, 23.3], [23.3, 0, 23.3, 46.3], [46.3, 23.3, 0, 23.3], [23.3, 46.3, 23.3, 0]]},
            2,
            "field 'invbws': link 1 -> 0: total cost 20 is below its beta 23",
        ),
    ],
)
def test_malformed_topology_json(tmp_path, base, change, nodes, message):
    data = dict(base, **change)  # None is JSON's null
    with pytest.raises(TesselError) as err:
        taccl.load_topology_json(_write(tmp_path, data), nodes)
    assert message in str(err.value) and "\n" not in str(err.value), str(err.value)
    assert "f.json" in str(err.value)


@pytest.mark.parametrize(
    "drop,nodes,message",
    [
        ("nics_per_node", 2, "field 'nics_per_node': missing: 2 nodes talk through their NICs"),
        ("remote_alpha", 2, "field 'remote_alpha': missing"),
        ("remote_beta", 2, "field 'remote_beta': missing"),
        ("node_betas_list", 2, "field 'node_betas_list': missing"),
        (
            "gpus_per_node",
            2,
            "field 'gpus_per_node': missing (the link-class form does not say how many GPUs a node has)",
        ),
    ],
)
def test_missing_fields(tmp_path, drop, nodes, message):
    data = {k: v for k, v in CLASSES.items() if k != drop and not (drop == "remote_beta" and k == "remote_invbw")}
    with pytest.raises(TesselError) as err:
        taccl.load_topology_json(_write(tmp_path, data), nodes)
    assert message in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_a_matrix_without_its_betas_or_a_node_at_all(tmp_path):
    with pytest.raises(TesselError, match="field 'betas': missing: the matrix form needs links and betas"):
        taccl.load_topology_json(_write(tmp_path, {"name": "m", "links": [[0, 1], [1, 0]]}))
    with pytest.raises(TesselError, match="field 'links': missing: the matrix form needs links and betas"):
        taccl.load_topology_json(_write(tmp_path, {"name": "m", "invbws": [[0, 1], [1, 0]]}))
    with pytest.raises(TesselError, match="field 'links': missing: give the node as matrices"):
        taccl.load_topology_json(_write(tmp_path, {"name": "m", "gpus_per_node": 2}))
