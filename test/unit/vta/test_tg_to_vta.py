"""Differential tests of tg-to-vta + vta-codegen: random int8 layers in tg run on the
reference interpreter and, after the passes, on the simulated VTA (with the CPU target for
what stays in tg); the outputs must be equal bit for bit. Chains the pass must not take (a clip
before the shift, a second use of the accumulator) stay in tg and still agree."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.passes import PassPipeline

from tessel.dialects import vta
from tessel.dialects.context import make_context
from tessel.ir.source import parse_module, verify
from tessel.passes.tg.to_vta import TgToVta
from tessel.passes.vta.codegen import VtaCodegen
from tessel.pipelines.vta import execute
from tessel.targets.reference.interpreter import entry_function, run


def _t(shape, et: str) -> str:
    return "tensor<" + "x".join(map(str, shape)) + f"x{et}>"


def conv_module(
    rng: np.random.Generator,
    c: int,
    hw: tuple[int, int],
    oc: int,
    k: int,
    s: int,
    pads,
    shift: int,
    relu: str,
    clip: tuple[int, int] | None,
    bias: bool,
    order: str = "shift-clip",
) -> tuple[str, dict]:
    h, w = hw
    oh, ow = (h + pads[0] + pads[2] - k) // s + 1, (w + pads[1] + pads[3] - k) // s + 1
    wv = rng.integers(-128, 128, (oc, c, k, k), dtype=np.int8)
    bv = rng.integers(-(1 << 14), 1 << 14, (oc,), dtype=np.int32)
    xt, yt = _t((1, c, h, w), "i32"), _t((1, oc, oh, ow), "i32")
    wt = _t((oc, c, k, k), "i32")
    lines = [f"  %wi = tg.constant dense<{wv.tolist()}> : {wt}"]
    if bias:
        lines.append(f"  %b = tg.constant dense<{bv.tolist()}> : {_t((oc,), 'i32')}")
    lines.append(f"  %xi = tg.cast %x : {_t((1, c, h, w), 'i8')} -> {xt}")
    operands, types = ("%xi, %wi, %b", f"{xt}, {wt}, {_t((oc,), 'i32')}") if bias else ("%xi, %wi", f"{xt}, {wt}")
    lines.append(
        f"  %v0 = tg.conv2d {operands} {{strides = array<i64: {s}, {s}>, pads = array<i64: {', '.join(map(str, pads))}>, "
        f"dilations = array<i64: 1, 1>, groups = 1 : i64}} : ({types}) -> {yt}"
    )
    steps = []
    if relu == "before":
        steps.append(f"tg.relu %v : {yt}")
    if order == "shift-clip":
        steps.append(f"tg.shift_right %v {{amount = {shift} : i64}} : {yt}")
        if relu == "after":
            steps.append(f"tg.relu %v : {yt}")
        if clip:
            steps.append(f"tg.clip %v {{min = {clip[0]} : i32, max = {clip[1]} : i32}} : {yt}")
    else:  # clip first: not VTA's order, stays in tg
        assert clip is not None
        steps.append(f"tg.clip %v {{min = {clip[0]} : i32, max = {clip[1]} : i32}} : {yt}")
        steps.append(f"tg.shift_right %v {{amount = {shift} : i64}} : {yt}")
    for i, step in enumerate(steps):
        lines.append(f"  %v{i + 1} = " + step.replace("%v", f"%v{i}", 1))
    lines.append(f"  %y = tg.cast %v{len(steps)} : {yt} -> {_t((1, oc, oh, ow), 'i8')}")
    text = (
        f"func.func @main(%x: {_t((1, c, h, w), 'i8')}) -> {_t((1, oc, oh, ow), 'i8')} {{\n"
        + "\n".join(lines)
        + f"\n  func.return %y : {_t((1, oc, oh, ow), 'i8')}\n}}\n"
    )
    return text, {}


def _both(text: str, vthreads: int, seed: int):
    module = parse_module(make_context(), text, "layer.mlir")
    verify(module)
    fn = entry_function(module)
    x_type = fn.function_type.inputs.data[0]
    x = np.random.default_rng(seed).integers(-128, 128, x_type.get_shape(), dtype=np.int8)
    expected = run(module.clone(), [x], {})[0]
    PassPipeline((TgToVta(), VtaCodegen(vthreads=vthreads))).apply(make_context(), module)
    verify(module)
    result = execute(module, entry_function(module), [x], {})
    assert all(s.hazards.ok for s in result.layers)
    return module, expected, result


CASES = [
    # c, (h, w), oc, k, stride, pads, shift, relu, clip, bias
    (16, (8, 8), 16, 3, 1, (1, 1, 1, 1), 6, "after", (-128, 127), True),
    (32, (7, 9), 48, 3, 2, (1, 0, 1, 2), 7, "before", (-100, 90), True),
    (16, (5, 5), 32, 1, 1, (0, 0, 0, 0), 3, "none", None, False),
    (48, (6, 4), 16, 2, 2, (0, 0, 0, 0), 0, "none", (-128, 127), True),
    (16, (10, 3), 16, 5, 1, (2, 2, 2, 2), 9, "after", (5, 120), False),
]


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"case{i}" for i in range(len(CASES))])
@pytest.mark.parametrize("vthreads", [1, 2])
def test_conv_layers_agree(index, vthreads):
    rng = np.random.default_rng(index)
    text, _ = conv_module(rng, *CASES[index])
    module, expected, result = _both(text, vthreads, seed=1)
    assert len(result.layers) == 1 and result.host_segments == 0
    assert np.array_equal(result.outputs[0], expected)


def test_chains_vta_cannot_take_stay_on_the_cpu_and_agree():
    rng = np.random.default_rng(3)
    text, _ = conv_module(rng, 16, (6, 6), 16, 3, 1, (1, 1, 1, 1), 4, "none", (-50, 50), True, order="clip-shift")
    module, expected, result = _both(text, 2, seed=2)
    assert not result.layers and result.host_segments == 1
    assert np.array_equal(result.outputs[0], expected)
    # 8 input channels: matched, refused with the reason, run on the CPU
    text, _ = conv_module(rng, 8, (6, 6), 16, 3, 1, (1, 1, 1, 1), 4, "after", (-128, 127), True)
    module, expected, result = _both(text, 2, seed=2)
    assert result.host_notes and "8 input channels are not a multiple of 16" in result.host_notes[0]
    assert np.array_equal(result.outputs[0], expected)


def test_matmul_becomes_a_1x1_conv_and_agrees():
    rng = np.random.default_rng(4)
    m, k, n = 8, 32, 16
    wv = rng.integers(-128, 128, (k, n), dtype=np.int8)
    bv = rng.integers(-1000, 1000, (n,), dtype=np.int32)
    text = f"""func.func @main(%x: {_t((m, k), "i8")}) -> {_t((m, n), "i8")} {{
  %w = tg.constant dense<{wv.tolist()}> : {_t((k, n), "i8")}
  %b = tg.constant dense<{bv.tolist()}> : {_t((n,), "i32")}
  %xi = tg.cast %x : {_t((m, k), "i8")} -> {_t((m, k), "i32")}
  %wi = tg.cast %w : {_t((k, n), "i8")} -> {_t((k, n), "i32")}
  %p = tg.matmul %xi, %wi : ({_t((m, k), "i32")}, {_t((k, n), "i32")}) -> {_t((m, n), "i32")}
  %pb = tg.add %p, %b : ({_t((m, n), "i32")}, {_t((n,), "i32")}) -> {_t((m, n), "i32")}
  %s = tg.shift_right %pb {{amount = 5 : i64}} : {_t((m, n), "i32")}
  %y = tg.cast %s : {_t((m, n), "i32")} -> {_t((m, n), "i8")}
  func.return %y : {_t((m, n), "i8")}
}}
"""
    module, expected, result = _both(text, 2, seed=5)
    assert len(result.layers) == 1
    assert any(isinstance(o, vta.Conv2dOp) for o in module.walk())
    assert np.array_equal(result.outputs[0], expected)
