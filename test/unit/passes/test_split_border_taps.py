"""tg-split-border-taps (passes/tg/split_border_taps.py), differentially: ONNX Conv nodes
whose taps mostly read padding (DeepLabV3's ASPP geometry, strided, grouped, no tap live
everywhere, bias or none, a ReLU after) compiled for the CPU against onnx.reference, and
the pass's own tap arithmetic against a brute-force count of the positions each tap reads."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tessel.dialects import tg
from tessel.dialects.context import make_context
from tessel.frontends.onnx import import_model
from tessel.passes.tg.split_border_taps import TapGroup, TgSplitBorderTaps, live_outputs, tap_groups
from tessel.pipelines.tensor import compile_for_cpu

# (channels in, out, groups, map, kernel, stride, dilation, pad, bias)
CASES = {
    "aspp dilation 12 on 14x14": (96, 64, 1, 14, 3, 1, 12, 12, True),
    "no tap live everywhere": (256, 256, 1, 5, 2, 1, 4, 2, True),
    "strided, grouped": (512, 512, 4, 7, 3, 2, 6, 6, False),
    "padding 3, dilation 4 on 6x6": (256, 192, 1, 6, 3, 1, 4, 3, True),
}


def conv_model(cin: int, cout: int, groups: int, size: int, k: int, s: int, d: int, p: int, bias: bool):
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(rng.standard_normal((cout, cin // groups, k, k)).astype(np.float32), "w")]
    inputs = ["x", "w"]
    if bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(cout).astype(np.float32), "b"))
        inputs.append("b")
    out = (size + 2 * p - d * (k - 1) - 1) // s + 1
    nodes = [
        helper.make_node("Conv", inputs, ["c"], strides=[s, s], dilations=[d, d], pads=[p] * 4, group=groups),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, out, out])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("name", sorted(CASES))
def test_split_conv_computes_what_onnx_computes(name: str) -> None:
    cin, _, _, size, *_ = CASES[name]
    model = conv_model(*CASES[name])
    x = np.random.default_rng(7).standard_normal((1, cin, size, size)).astype(np.float32)
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    imported = import_model(model)
    split = imported.module.clone()
    TgSplitBorderTaps().apply(make_context(), split)
    assert sum(isinstance(op, tg.Conv2dOp) for op in split.walk()) > 1, "the conv was split"
    executable, _ = compile_for_cpu(imported.module, imported.weights, threads=2)
    try:
        (got,) = executable.run([x])
    finally:
        executable.close()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))


@pytest.mark.parametrize(
    "n,k,s,d,p", [(14, 3, 1, 12, 12), (7, 3, 2, 6, 6), (5, 2, 1, 4, 2), (9, 5, 2, 3, 7), (4, 3, 3, 1, 0)]
)
def test_tap_groups_are_where_each_tap_reads_the_input(n: int, k: int, s: int, d: int, p: int) -> None:
    out = (n + 2 * p - d * (k - 1) - 1) // s + 1
    for tap in range(k):
        live = [o for o in range(out) if 0 <= o * s + tap * d - p < n]
        lo, hi = live_outputs(n, tap, s, d, p, out)
        assert list(range(lo, hi)) == live, (tap, lo, hi, live)
    groups = tap_groups(n, k, s, d, p, out)
    covered = [t for g in groups for t in range(g.first, g.last + 1)]
    assert covered == [t for t in range(k) if live_outputs(n, t, s, d, p, out)[0] < live_outputs(n, t, s, d, p, out)[1]]
    assert all(isinstance(g, TapGroup) and g.lo < g.hi for g in groups)
