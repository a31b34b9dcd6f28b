"""tg-conv-transpose-to-conv (and the batch-norm fold into conv_transpose2d that precedes
it) on random transposed convolutions: the reference semantics of the IR before and after
agree, and every eligible op (groups 1, dilation 1, compile-time weights) is rewritten.
Strides, kernel sizes (also not multiples of the stride, also non-square), asymmetric
pads and output_padding are drawn, since each changes the phase arithmetic."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.passes import ModulePass, PassPipeline

from tessel.dialects import tg
from tessel.dialects.context import make_context
from tessel.dialects.tg.reference import conv_transpose2d
from tessel.ir.source import parse_module, verify
from tessel.ir.weights import WeightStore, with_weights
from tessel.passes.tg.conv_transpose_to_conv import TgConvTransposeToConv
from tessel.passes.tg.fold_batchnorm import TgFoldBatchnorm
from tessel.passes.tg.fold_constants import TgFoldConstants
from tessel.targets.reference.interpreter import run


@st.composite
def cases(draw):
    s = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    k = [draw(st.integers(1, 5)), draw(st.integers(1, 5))]
    size = [draw(st.integers(1, 5)), draw(st.integers(1, 5))]
    pads = [draw(st.integers(0, k[i % 2] - 1)) for i in range(4)]
    out_pad = [draw(st.integers(0, s[i] - 1)) for i in range(2)]
    out = [s[i] * (size[i] - 1) + out_pad[i] + k[i] - pads[i] - pads[i + 2] for i in range(2)]
    if min(out) < 1:
        out_pad = [0, 0]
        pads = [0, 0, 0, 0]
        out = [s[i] * (size[i] - 1) + k[i] for i in range(2)]
    c, m = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    return dict(
        s=s,
        k=k,
        size=size,
        pads=pads,
        out_pad=out_pad,
        out=out,
        c=c,
        m=m,
        bias=draw(st.booleans()),
        bn=draw(st.booleans()),
        seed=draw(st.integers(0, 2**16)),
    )


def _arr(shape) -> str:
    return "x".join(map(str, shape)) + "xf32"


def module_text(p) -> str:
    c, m, (h, w), (oh, ow), (kh, kw) = p["c"], p["m"], p["size"], p["out"], p["k"]
    bias = ", %b" if p["bias"] else ""
    bias_t = f", tensor<{m}xf32>" if p["bias"] else ""
    lines = [
        f"func.func @main(%x: tensor<1x{_arr([c, h, w])}>) -> tensor<1x{_arr([m, oh, ow])}> {{",
        f"  %w = tg.weight @w : tensor<{_arr([c, m, kh, kw])}>",
        f"  %b = tg.weight @b : tensor<{m}xf32>" if p["bias"] else "",
        f"  %y = tg.conv_transpose2d %x, %w{bias} {{strides = array<i64: {p['s'][0]}, {p['s'][1]}>, "
        f"pads = array<i64: {', '.join(map(str, p['pads']))}>, dilations = array<i64: 1, 1>, groups = 1 : i64, "
        f"output_padding = array<i64: {p['out_pad'][0]}, {p['out_pad'][1]}>}} : "
        f"(tensor<1x{_arr([c, h, w])}>, tensor<{_arr([c, m, kh, kw])}>{bias_t}) -> tensor<1x{_arr([m, oh, ow])}>",
    ]
    result = "%y"
    if p["bn"]:
        lines += [f"  %{n} = tg.weight @{n} : tensor<{m}xf32>" for n in ("g", "beta", "mu", "var")]
        lines.append(
            f"  %z = tg.batch_norm %y, %g, %beta, %mu, %var {{epsilon = 1.0e-05 : f32}} : "
            f"(tensor<1x{_arr([m, oh, ow])}>, {', '.join([f'tensor<{m}xf32>'] * 4)}) -> tensor<1x{_arr([m, oh, ow])}>"
        )
        result = "%z"
    lines += [f"  func.return {result} : tensor<1x{_arr([m, oh, ow])}>", "}"]
    return "\n".join(l for l in lines if l)


def weights(p) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(p["seed"])
    c, m, (kh, kw) = p["c"], p["m"], p["k"]
    out = {"w": rng.standard_normal((c, m, kh, kw)).astype(np.float32), "b": rng.standard_normal(m).astype(np.float32)}
    out |= {
        "g": rng.uniform(0.5, 2, m),
        "beta": rng.standard_normal(m),
        "mu": rng.standard_normal(m),
        "var": rng.uniform(0.5, 2, m),
    }
    return {k: np.asarray(v, np.float32) for k, v in out.items()}


def apply(text: str, store: WeightStore, *passes: ModulePass):
    ctx = make_context()
    module = parse_module(ctx, text)
    PassPipeline(with_weights(passes, store)).apply(ctx, module)
    verify(module)
    return module


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_rewrite_preserves_outputs(p):
    text = module_text(p)
    ws = weights(p)
    x = np.random.default_rng(p["seed"] + 1).standard_normal((1, p["c"], *p["size"])).astype(np.float32)
    want = run(apply(text, WeightStore(ws)), [x], ws)[0]
    if not p["bn"]:  # the IR's meaning is the numpy reference's
        expected = conv_transpose2d(
            x, ws["w"], ws["b"] if p["bias"] else None, p["s"], p["pads"], [1, 1], p["out_pad"], 1
        )
        np.testing.assert_allclose(want, expected, rtol=1e-5, atol=1e-5)
    store = WeightStore(dict(ws))
    rewritten = apply(text, store, TgFoldBatchnorm(), TgConvTransposeToConv(), TgFoldConstants())
    ops = [op for op in rewritten.walk() if isinstance(op, tg.TgOp)]
    assert not any(isinstance(op, tg.ConvTranspose2dOp | tg.BatchNormOp) for op in ops)
    assert sum(isinstance(op, tg.Conv2dOp) for op in ops) == 1
    got = run(rewritten, [x], store)[0]
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale)


def test_grouped_and_dilated_stay():
    text = """
    func.func @main(%x: tensor<1x4x3x3xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x2x9x9xf32>) {
      %w = tg.weight @w : tensor<4x2x3x3xf32>
      %v = tg.weight @v : tensor<4x2x3x3xf32>
      %g = tg.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x7x7xf32>
      %d = tg.conv_transpose2d %x, %v {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x9x9xf32>
      func.return %g, %d : tensor<1x4x7x7xf32>, tensor<1x2x9x9xf32>
    }
    """
    module = apply(text, WeightStore({}), TgConvTransposeToConv())
    assert sum(isinstance(op, tg.ConvTranspose2dOp) for op in module.walk()) == 2
