"""Differential fuzzing of collective synthesis: random connected topologies (one or two
nodes, random links, latencies and bandwidths) and random collectives must give algorithms
that the symbolic verifier accepts and the buffer interpreter confirms on random data. And
TACCL topology files, right and wrong, load or fail with one error line naming the field."""

from __future__ import annotations

import json
from profile import fuzz

from hypothesis import given
from hypothesis import strategies as st

from tessel.dialects.coll import taccl
from tessel.dialects.coll import topologies as T
from tessel.dialects.coll.model import CollKind, Topology
from tessel.dialects.coll.reference import check, random_inputs, run
from tessel.dialects.coll.verify import check_algorithm
from tessel.ir.diagnostics import TesselError
from tessel.passes.coll.synth.driver import Options, synthesize

KINDS = [
    CollKind.ALLGATHER,
    CollKind.REDUCE_SCATTER,
    CollKind.ALLREDUCE,
    CollKind.ALLTOALL,
    CollKind.BROADCAST,
    CollKind.REDUCE,
]


@st.composite
def topologies(draw) -> Topology:
    """A strongly connected node (a random spanning tree, both ways, plus extra one-way
    links), replicated over one or two nodes joined by InfiniBand."""
    per = draw(st.integers(2, 6))
    counts = [[0] * per for _ in range(per)]
    for g in range(1, per):
        parent = draw(st.integers(0, g - 1))
        counts[g][parent] = counts[parent][g] = draw(st.integers(1, 2))
    for _ in range(draw(st.integers(0, per))):
        s, d = draw(st.integers(0, per - 1)), draw(st.integers(0, per - 1))
        if s != d:
            counts[s][d] = max(counts[s][d], 1)
    betas = [
        [draw(st.sampled_from([5.0, 10.0, 23.0, 46.0])) if counts[s][d] else 0.0 for d in range(per)]
        for s in range(per)
    ]
    alphas = [[draw(st.sampled_from([0.1, 0.3, 0.7])) if counts[s][d] else 0.0 for d in range(per)] for s in range(per)]
    nodes = draw(st.integers(1, 2))
    topo = T.custom("fuzz", counts, betas, alphas, nodes=nodes)
    topo.validate()
    return topo


@fuzz(ci=15, long=3000)
@given(topologies(), st.sampled_from(KINDS), st.sampled_from([1 << 10, 1 << 16, 1 << 20]), st.data())
def test_random_topologies_and_collectives_synthesize_correct_algorithms(
    topo: Topology, kind: CollKind, size: int, data
) -> None:
    root = data.draw(st.integers(0, topo.gpus - 1)) if kind in (CollKind.BROADCAST, CollKind.REDUCE) else 0
    result = synthesize(topo, kind, size, opts=Options(time_limit=3), root=root)
    alg = result.algorithm
    check_algorithm(alg)
    inputs = random_inputs(alg, 3, seed=data.draw(st.integers(0, 1000)))
    assert check(alg, inputs, run(alg, inputs)) is None


NUMBERS = st.one_of(st.integers(-2, 300), st.floats(-1, 300, allow_nan=False), st.just("x"), st.none(), st.booleans())


@st.composite
def taccl_files(draw) -> dict:
    """TACCL topology files as users write them, right and wrong: either form, both, parts of
    one, sizes that disagree, NIC fields or none, any value where a number belongs."""
    per = draw(st.integers(1, 5))
    data: dict = {}
    if draw(st.booleans()):
        data["name"] = draw(st.sampled_from(["rack", "NDv2_x", "custom", "", "DGX2"]))
    if draw(st.booleans()):
        data["gpus_per_node"] = draw(st.one_of(st.just(per), st.integers(-1, 9), NUMBERS))
    if draw(st.booleans()):
        data["alpha"] = draw(NUMBERS)
    if draw(st.booleans()):
        data["node_betas_list"] = draw(st.lists(NUMBERS, max_size=3))
    if draw(st.booleans()):
        data["node_invbws_list"] = draw(st.lists(NUMBERS, max_size=3))
    size = draw(st.sampled_from([per, per + 1]))
    matrix = st.lists(
        st.lists(st.sampled_from([0, 0, 1, 2, 23, 46.3, -1]), min_size=size, max_size=size),
        min_size=size,
        max_size=size,
    )
    for key in ("links", "betas", "invbws"):
        if draw(st.booleans()):
            data[key] = draw(st.one_of(matrix, NUMBERS))
    for key in ("nics_per_node", "remote_alpha", "remote_beta", "remote_invbw", "scale", "profile_bytes"):
        if draw(st.booleans()):
            data[key] = draw(NUMBERS)
    return data


@fuzz(ci=60, long=5000)
@given(taccl_files(), st.sampled_from([None, 1, 2, 3]))
def test_every_taccl_file_loads_or_fails_in_one_line(tmp_path_factory, data: dict, nodes: int | None) -> None:
    path = tmp_path_factory.mktemp("taccl") / "topo.json"
    path.write_text(json.dumps(data))
    try:
        topo = taccl.load_topology_json(str(path), nodes)
    except TesselError as err:
        text = str(err)
        assert "\n" not in text and "topo.json" in text and ("field '" in text or "is not valid" in text), text
        return
    topo.validate()
    assert topo.gpus == topo.gpus_per_node * topo.nodes and topo.links
