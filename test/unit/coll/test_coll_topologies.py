"""Topologies: built-ins are well formed, TACCL's JSON imports to the same machines, and every
malformed file or sketch is one error line naming the file and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tessel.dialects.coll import taccl
from tessel.dialects.coll import topologies as T
from tessel.dialects.coll.model import automorphism_problem
from tessel.ir.diagnostics import TesselError

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "coll"


@pytest.mark.parametrize(
    "name,gpus,ports", [("ndv2", 8, 0), ("ndv2x2", 16, 4), ("dgx2x2", 32, 96), ("ring8", 8, 0), ("ndv2x10", 80, 20)]
)
def test_builtins_validate(name, gpus, ports):
    topo = T.builtin(name)
    topo.validate()
    assert topo.gpus == gpus and len(topo.ports) == ports


def test_ndv2_is_the_hybrid_cube_mesh():
    topo = T.ndv2()
    nv = [l for l in topo.links.values() if l.kind == "nvlink"]
    assert len(nv) == 32  # 16 pairs, both directions
    assert sorted({l.beta for l in nv}) == [23.0, 46.0]
    assert sum(l.lanes for l in nv if l.src == 0) == 6  # six NVLinks per V100


def test_taccl_json_matches_builtin():
    a = taccl.load_topology_json(str(EXAMPLES / "ndv2-1MB.json"), nodes=2)
    b = T.ndv2(2)
    assert a.links == b.links and [n.gpus for n in a.nics] == [n.gpus for n in b.nics]
    c = taccl.load_topology_json(str(EXAMPLES / "dgx2-1MB.json"), nodes=2)
    assert c.links == T.dgx2(2).links and len(c.nics) == 16
    assert [g.gpus for g in c.switches] == [g.gpus for g in T.dgx2(2).switches]


def test_custom_matrix_is_indexed_dst_src():
    topo = taccl.load_topology_json(str(EXAMPLES / "custom-ring4.json"))
    nvlink = {k for k, link in topo.links.items() if link.kind == "nvlink"}
    assert nvlink == {(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2), (3, 0), (0, 3)}
    assert topo.links[(0, 1)].alpha == pytest.approx(0.3)
    # the pairs without NVLink talk over PCIe
    assert {k for k, link in topo.links.items() if link.kind == "pcie"} == {(0, 2), (2, 0), (1, 3), (3, 1)}


def test_symmetries():
    assert automorphism_problem(T.ndv2(2), 8, 16) is None
    assert automorphism_problem(T.dgx2(2), 2, 16) is None
    assert "different kind or cost" in automorphism_problem(T.ndv2(2), 1, 8)


def _write(tmp_path, data, name="f.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_topology_json_syntax_error_has_position(tmp_path):
    with pytest.raises(TesselError, match=r"f\.json:2:\d+: error: topology is not valid JSON"):
        taccl.load_topology_json(_write(tmp_path, '{"name": "x",\n "alpha": }'))


@pytest.mark.parametrize(
    "sketch,message",
    [
        ({"internode_sketch": {"strategy": "ring"}}, "field 'internode_sketch.strategy': only relay is supported"),
        ({"internode_sketch": {"internode_conn": 5}}, "field 'internode_sketch.internode_conn': expected an object"),
        ({"internode_sketch": {"internode_conn": {"a": [1]}}}, 'expected local GPU indices, got "a"'),
        ({"symmetry_offsets": [[8]]}, "field 'symmetry_offsets': expected a list of [offset, group] integer pairs"),
        ({"symmetry_offsets": [[16, 16]]}, "[16, 16]: need 0 < offset < group"),
        ({"hyperparameters": {"input_chunkup": 0}}, "field 'hyperparameters.input_chunkup': must be >= 1, got 0"),
        (
            {"intranode_sketch": {"strategy": "switch", "switch_hyperedge_strategy": ["uc-mid"]}},
            "expected uc-min or uc-max",
        ),
    ],
)
def test_malformed_sketch_json(tmp_path, sketch, message):
    with pytest.raises(TesselError) as err:
        taccl.load_sketch_json(_write(tmp_path, sketch))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_sketch_must_fit_topology(tmp_path):
    topo = T.ndv2(2)
    sk = taccl.load_sketch_json(_write(tmp_path, {"internode_sketch": {"internode_conn": {"0": [9]}}}))
    with pytest.raises(TesselError, match="local GPU 9 does not exist"):
        taccl.check_sketch(sk, topo, "sk.json")
    sk = taccl.load_sketch_json(_write(tmp_path, {"symmetry_offsets": [[1, 8]]}))
    with pytest.raises(TesselError, match=r"\[1, 8\] is not a symmetry of ndv2x2"):
        taccl.check_sketch(sk, topo, "sk.json")
    sk = taccl.load_sketch_json(str(EXAMPLES / "sk-dgx2-pairs-n2.json"))
    taccl.check_sketch(sk, T.dgx2(2), "sk")
    assert sk.chunkup == 2 and sk.switch_policy == "uc-min" and (1, 0) in sk.conn
