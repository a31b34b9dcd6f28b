"""img-hoist-reductions keeps every value (differential, on random frames and streams);
img-rates and img-partition compute what their formulas say; the paper's conclusion holds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.passes import PassPipeline

from tessel.bench.camera import load_pipelines
from tessel.dialects import img
from tessel.dialects.context import make_context
from tessel.dialects.img.reference import run
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import parse_module, print_module, verify
from tessel.passes.img.analysis.costs import Link, Platform, load_model
from tessel.passes.img.hoist_reductions import ImgHoistReductions
from tessel.passes.img.partition import ImgPartition, choose, options
from tessel.passes.img.rates import rates

ROOT = Path(__file__).resolve().parents[3]
HOIST = (ROOT / "test" / "lit" / "passes" / "img" / "hoist-reductions.mlir").read_text().split("// -----")


def _module(text: str):  # noqa: ANN202
    m = parse_module(make_context(), text, "t.mlir")
    verify(m)
    return m


def _inputs(fn: func.FuncOp, rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for a in fn.body.block.args:
        t = a.type
        out.append(rng.integers(0, 256, t.shape, dtype=np.uint8))
    return out


@pytest.mark.parametrize("case", range(len(HOIST)))
def test_hoisting_keeps_every_value(case):
    before = _module(HOIST[case])
    after = _module(HOIST[case])
    PassPipeline((ImgHoistReductions(),)).apply(make_context(), after)
    verify(after)
    rng = np.random.default_rng(case)
    # every third frame is black, so the max-based gates drop some frames
    frames = [rng.integers(0, 256, (16, 16, 1), dtype=np.uint8) * (i % 3 != 0) for i in range(12)]
    for f0, f1 in zip(
        [o for o in before.ops if isinstance(o, func.FuncOp)], [o for o in after.ops if isinstance(o, func.FuncOp)]
    ):
        args = _inputs(f0, rng)
        sources = {"s": frames}  # the sources are named by their result (%s) in these tests
        want, got = run(f0, args, sources), run(f1, args, sources)
        for w, g in zip(want, got):
            if isinstance(w, list):
                assert 0 < len(w) == len(g) and all(np.array_equal(a, b) for a, b in zip(w, g))
            else:
                assert np.array_equal(w, g)


def test_rates_follow_gates_and_cameras_and_reject_mixed_rates():
    text = """func.func @f() {
  %s = img.source {fps = 30.0 : f64, count = 4 : i64} : !img.stream<8x8x1xui8>
  %r = img.reduce %s kind max : !img.stream<8x8x1xui8> -> !img.stream<1x1x1xui8>
  %g = img.gate %s, %r {pass_rate = 0.25 : f64} : !img.stream<8x8x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<8x8x1xui8>
  %m = img.map %g, %s : (!img.stream<8x8x1xui8>, !img.stream<8x8x1xui8>) -> !img.stream<8x8x1xui8> {
  ^bb0(%a: i8, %b: i8):
    img.yield %a : i8
  }
  func.return
}
"""
    fn = next(o for o in _module(text).ops if isinstance(o, func.FuncOp))
    ops = list(fn.body.block.ops)
    with pytest.raises(TesselError, match=r"img.map combines values at different rates \(120 fps and 30 fps\)"):
        rates(fn)
    fn.body.block.erase_op(ops[3])  # drop the inconsistent map
    found = rates(fn)
    assert (
        found[ops[0].results[0]].fps == 120
        and found[ops[2].results[0]].fps == 30
        and found[ops[2].results[0]].reach == 0.25
    )


def test_partition_costs_match_the_formula_and_place_the_cut():
    text = """func.func @f() {
  %s = img.source {fps = 10.0 : f64} : !img.stream<100x100x1xui8>
  %d = img.downsample %s factor [10, 10] mode average : !img.stream<100x100x1xui8> -> !img.stream<10x10x1xui8>
  img.sink %d : !img.stream<10x10x1xui8>
  func.return
}
"""
    module = _module(text)
    fn = next(o for o in module.ops if isinstance(o, func.FuncOp))
    cheap_op, dear_bit = Platform("p", pj_per_op=1.0, ops_per_s=1e9), Link("l", gbps=1.0, nj_per_bit=1.0)
    raw, down = options(fn, cheap_op, dear_bit)
    assert raw.bits_per_s == 10 * 100 * 100 * 8 and raw.per_frame_uj == pytest.approx(80_000 * 1e-3)  # 80 kbit x 1 nJ
    assert down.node_ops_per_s == 10 * 100 * 100  # one op per input pixel, 10 frames/s
    assert down.per_frame_uj == pytest.approx((1e5 * 1e-12 + 8_000 * 1e-9) / 10 * 1e6)
    assert choose([raw, down], cheap_op, dear_bit) is down
    # a link too slow for raw frames leaves only the reduced cut; one too slow for both fails clearly
    slow = Link("slow", gbps=1e-4, nj_per_bit=0.0)
    assert [o.feasible for o in options(fn, cheap_op, slow)] == [False, True]
    with pytest.raises(TesselError, match="no cut fits p \\+ tiny"):
        choose(options(fn, cheap_op, Link("tiny", gbps=1e-9, nj_per_bit=0)), cheap_op, Link("tiny", 1e-9, 0))


def test_partition_pass_marks_places_and_inserts_the_link():
    build = load_pipelines()
    module = _module(build("face_auth"))
    PassPipeline(
        (ImgPartition(model=str(ROOT / "examples/img/camera/platforms.json"), platform="mcu", link="backscatter"),)
    ).apply(make_context(), module)
    verify(module)
    text = print_module(module)
    fn = next(o for o in module.ops if isinstance(o, func.FuncOp))
    transmits = [o for o in fn.body.block.ops if isinstance(o, img.TransmitOp)]
    assert len(transmits) == 1 and transmits[0].input.name_hint == "roi" and 'link = "backscatter"' in text
    places = {
        o.results[0].name_hint: o.attributes[img.PLACE_ATTR].data
        for o in fn.body.block.ops
        if o.results and img.PLACE_ATTR in o.attributes
    }
    assert places["motion"] == "node" and places["roi"] == "node" and places["hidden"] == "cloud"


def test_the_earliest_reduction_matters_most():
    """The IISWC'17 conclusion in the model, on every face-auth configuration of the study."""
    build, model = load_pipelines(), load_model(ROOT / "examples/img/camera/platforms.json")
    for plat, link in (("mcu", "backscatter"), ("accel", "backscatter"), ("accel", "ble")):
        cost = {}
        for without in ((), ("motion_gate",), ("face_gate",), ("roi",)):
            fn = next(o for o in _module(build("face_auth", without)).ops if isinstance(o, func.FuncOp))
            p, lk = model.platform(plat), model.link(link)
            cost[without] = choose(options(fn, p, lk), p, lk).per_frame_uj
        assert cost[("motion_gate",)] > max(cost[("face_gate",)], cost[("roi",)]) > cost[()] * 0.99, (plat, link, cost)


def test_bounds_grow_by_the_halo_and_scale_through_resampling():
    from tessel.passes.img.infer_bounds import infer

    text = (ROOT / "test" / "lit" / "passes" / "img" / "infer-bounds.mlir").read_text().split("// -----")
    chain = next(o for o in _module(text[0]).ops if isinstance(o, func.FuncOp))
    needed = infer(chain)
    assert needed[chain.body.block.args[0]] == (8, 19, 16, 34)  # 5x3 halo: 2 rows, 1 column each side
    two = next(o for o in _module(text[1]).ops if isinstance(o, func.FuncOp))
    needed = infer(two)
    assert needed[two.body.block.args[0]] == (0, 0, 21, 17)  # (0..20, 0..16) grown by 1, clipped at 0


def test_the_face_authentication_camera_runs():
    """The case study is a program, not only a cost model: on synthetic frames the motion gate
    passes the frames that differ from the background, the face gate those with a strong
    vertical edge, and the network scores each survivor."""
    fn = next(o for o in _module(load_pipelines()("face_auth")).ops if isinstance(o, func.FuncOp))
    rng = np.random.default_rng(0)
    background = np.full((144, 176, 1), 40, np.uint8)
    still = np.full((144, 176, 1), 40, np.uint8)
    moving = still.copy()
    moving[40:110, 60:100] = 200  # a bright block: motion, and a strong left/right edge
    frames = [still, moving, still, moving, moving]
    w1 = rng.integers(-128, 128, (576, 64, 1), dtype=np.int8)
    w2 = rng.integers(-128, 128, (64, 2, 1), dtype=np.int8)
    sinks: list = []
    run(fn, [background.reshape(144, 176, 1)[::4, ::4][:36, :44], w1, w2], {"wispcam": frames}, sinks)
    (scores,) = sinks
    assert len(scores) == 3 and all(s.shape == (1, 1, 2) and s.dtype == np.int32 for s in scores)
