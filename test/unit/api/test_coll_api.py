"""tessel.coll: a synthesized allgather that verifies, simulates beside NCCL (the same numbers
as the pipeline's evaluation), writes MSCCL XML and coll IR, and one-line errors. Execution on
gloo is tested by test/unit/coll (it spawns a process per rank)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import tessel
from tessel.runtime.errors import TesselError


@pytest.fixture(scope="module")
def allgather() -> tessel.coll.Collective:
    return tessel.coll.synthesize("ring4", "allgather", "64KB", time_limit=10)


def test_synthesized_allgather(allgather) -> None:
    assert (allgather.kind, allgather.ranks, allgather.size) == ("allgather", 4, 65536)
    allgather.verify()
    sim = allgather.simulate()
    assert (
        sim.time_us > 0 and set(sim.nccl_us) and sim.speedup == pytest.approx(min(sim.nccl_us.values()) / sim.time_us)
    )
    from tessel.pipelines.coll import evaluate

    assert (
        evaluate(allgather.algorithm, allgather.topology, allgather.chunk_bytes, allgather.size).sim.time == sim.time_us
    )


def test_msccl_xml_and_ir(allgather) -> None:
    root = ET.fromstring(allgather.to_msccl_xml())
    assert root.tag == "algo" and root.get("coll") == "allgather" and len(root.findall("gpu")) == 4
    ir = allgather.to_ir()
    assert "coll.topology" in ir and "coll.algorithm" in ir


def test_sizes() -> None:
    assert tessel.coll.parse_size("1MB") == 1 << 20 and tessel.coll.parse_size(512) == 512
    assert tessel.coll.human_size(3 << 19) == "1.5MB"


@pytest.mark.parametrize(
    "args, message",
    [
        (("ring4", "allgathr", "1MB"), "unknown collective 'allgathr'"),
        (("ringx", "allgather", "1MB"), "unknown topology 'ringx'"),
        (("ring4", "allgather", "1XB"), "expected a size such as"),
    ],
)
def test_bad_requests_are_one_line_errors(args, message: str) -> None:
    with pytest.raises(TesselError, match=message) as err:
        tessel.coll.synthesize(*args)
    assert "\n" not in str(err.value)
