"""tg-conv3d-to-conv2d on random 3-D convolutions: the reference semantics before and after
agree, and every conv3d becomes one conv2d per depth tap. Strides, asymmetric pads and dilations are drawn
per dim (the depth ones change the slices, the others carry over), and groups, bias and
batch, since each enters the folding; then the whole CPU pipeline on one of them."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.passes import ModulePass, PassPipeline

from tessel.dialects import tg
from tessel.dialects.context import make_context
from tessel.dialects.tg.nn import conv_output_size
from tessel.dialects.tg.reference import conv_nd
from tessel.ir.source import parse_module, verify
from tessel.ir.weights import WeightStore, with_weights
from tessel.passes.tg.conv3d_to_conv2d import TgConv3dToConv2d
from tessel.targets.reference.interpreter import run


@st.composite
def cases(draw):
    groups = draw(st.sampled_from([1, 1, 2]))
    k = [draw(st.integers(1, 3)) for _ in range(3)]
    dil = [draw(st.integers(1, 2)) for _ in range(3)]
    s = [draw(st.integers(1, 3)) for _ in range(3)]
    size = [draw(st.integers(max(1, (k[i] - 1) * dil[i] + 1 - 2), 6)) for i in range(3)]
    pads = [draw(st.integers(0, k[i % 3] - 1)) for i in range(6)]
    out = [conv_output_size(size[i], k[i], s[i], pads[i], pads[i + 3], dil[i]) for i in range(3)]
    if min(out) < 1:
        pads = [k[i % 3] - 1 for i in range(6)]
        out = [conv_output_size(size[i], k[i], s[i], pads[i], pads[i + 3], dil[i]) for i in range(3)]
    return dict(
        n=draw(st.integers(1, 2)),
        c=groups * draw(st.integers(1, 3)),
        m=groups * draw(st.integers(1, 3)),
        groups=groups,
        k=k,
        s=s,
        pads=pads,
        dil=dil,
        size=size,
        out=out,
        bias=draw(st.booleans()),
        seed=draw(st.integers(0, 2**16)),
    )


def _t(shape) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def _ints(values) -> str:
    return "array<i64: " + ", ".join(map(str, values)) + ">"


def module_text(p) -> str:
    x, w, y = [p["n"], p["c"], *p["size"]], [p["m"], p["c"] // p["groups"], *p["k"]], [p["n"], p["m"], *p["out"]]
    bias, bias_t = (", %b", f", tensor<{p['m']}xf32>") if p["bias"] else ("", "")
    lines = [
        f"func.func @main(%x: {_t(x)}) -> {_t(y)} {{",
        f"  %w = tg.weight @w : {_t(w)}",
        f"  %b = tg.weight @b : tensor<{p['m']}xf32>" if p["bias"] else "",
        f"  %y = tg.conv3d %x, %w{bias} {{strides = {_ints(p['s'])}, pads = {_ints(p['pads'])}, "
        f"dilations = {_ints(p['dil'])}, groups = {p['groups']} : i64}} : ({_t(x)}, {_t(w)}{bias_t}) -> {_t(y)}",
        f"  func.return %y : {_t(y)}",
        "}",
    ]
    return "\n".join(line for line in lines if line)


def weights(p) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(p["seed"])
    w = rng.standard_normal((p["m"], p["c"] // p["groups"], *p["k"])).astype(np.float32)
    return {"w": w, "b": rng.standard_normal(p["m"]).astype(np.float32)}


def apply(text: str, store: WeightStore, *passes: ModulePass):
    ctx = make_context()
    module = parse_module(ctx, text)
    PassPipeline(with_weights(passes, store)).apply(ctx, module)
    verify(module)
    return module


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_rewrite_preserves_outputs(p):
    text, ws = module_text(p), weights(p)
    x = np.random.default_rng(p["seed"] + 1).standard_normal((p["n"], p["c"], *p["size"])).astype(np.float32)
    want = run(apply(text, WeightStore(ws)), [x], ws)[0]
    # the IR's meaning is the numpy reference's
    expected = conv_nd(x, ws["w"], ws["b"] if p["bias"] else None, p["s"], p["pads"], p["dil"], p["groups"])
    np.testing.assert_allclose(want, expected, rtol=1e-5, atol=1e-5)
    rewritten = apply(text, WeightStore(dict(ws)), TgConv3dToConv2d())
    ops = [op for op in rewritten.walk() if isinstance(op, tg.TgOp)]
    assert not any(isinstance(op, tg.Conv3dOp) for op in ops)
    assert sum(isinstance(op, tg.Conv2dOp) for op in ops) == p["k"][0]
    got = run(rewritten, [x], ws)[0]
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale)


def test_the_cpu_pipeline_runs_the_rewritten_convolution():
    """A 3x3x3 convolution with depth stride 2 and padding, as r3d_18's, compiled for the CPU:
    the depth slices, the blocked conv2ds with the running sum in their epilogues and the
    unfolding transpose agree with the reference."""
    from tessel.pipelines.tensor import compile_for_cpu

    p = dict(n=1, c=16, m=32, groups=1, k=[3, 3, 3], s=[2, 1, 1], pads=[1, 1, 1, 1, 1, 1], dil=[1, 1, 1])
    p |= dict(size=[5, 9, 9], out=[3, 9, 9], bias=True, seed=3)
    text, ws = module_text(p), weights(p)
    x = np.random.default_rng(4).standard_normal((1, 16, 5, 9, 9)).astype(np.float32)
    module = parse_module(make_context(), text)
    want = run(module.clone(), [x], ws)[0]
    executable, report = compile_for_cpu(module, WeightStore(dict(ws)), threads=2)
    try:
        got = executable.run([x])[0]
    finally:
        executable.close()
    assert "tg-conv3d-to-conv2d" in report.seconds
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))
