"""tg-layout on grouped convolutions: where merging at most four neighbouring groups gives
whole 16-channel blocks (ResNeXt's 32 groups of 4, RegNet's groups of 8, groups of 16 or
more as they are), the conv2d becomes a grouped conv2d_nchwc with a block-diagonal weight;
the reference semantics before and after agree, and so does the whole CPU pipeline. Groups
that would need more merging (2 channels each) and depthwise ones keep their own paths."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from tessel.dialects import tg
from tessel.dialects.context import make_context
from tessel.dialects.tg.base import integer
from tessel.ir.source import parse_module, verify
from tessel.ir.weights import WeightStore, with_weights
from tessel.passes.tg.fold_constants import TgFoldConstants
from tessel.passes.tg.layout import TgLayout, group_merge, padded_group_merge
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.reference.interpreter import run


def module_text(c: int, m: int, groups: int, stride: int, bias: bool) -> str:
    size, out = 9, (9 + 2 - 3) // stride + 1
    x, w, y = f"tensor<1x{c}x{size}x{size}xf32>", f"tensor<{m}x{c // groups}x3x3xf32>", f"tensor<1x{m}x{out}x{out}xf32>"
    b, bt = (", %b", f", tensor<{m}xf32>") if bias else ("", "")
    return f"""
    func.func @main(%x: {x}) -> {y} {{
      %w = tg.weight @w : {w}
      %b = tg.weight @b : tensor<{m}xf32>
      %y = tg.conv2d %x, %w{b} {{strides = array<i64: {stride}, {stride}>, pads = array<i64: 1, 1, 1, 1>,
        dilations = array<i64: 1, 1>, groups = {groups} : i64}} : ({x}, {w}{bt}) -> {y}
      %r = tg.relu %y : {y}
      func.return %r : {y}
    }}"""


def _laid_out(text: str, ws: dict[str, np.ndarray]) -> tuple[ModuleOp, WeightStore]:
    """The module after tg-layout and tg-fold-constants, verified, with its folded weights."""
    ctx = make_context()
    module, store = parse_module(ctx, text), WeightStore(dict(ws))
    PassPipeline(with_weights((TgLayout(), TgFoldConstants()), store)).apply(ctx, module)
    verify(module)
    return module, store


def _assert_cpu_result(text: str, ws: dict[str, np.ndarray], x: np.ndarray, want: np.ndarray) -> None:
    """The whole CPU pipeline on `text` gives `want`."""
    executable, _ = compile_for_cpu(parse_module(make_context(), text), WeightStore(dict(ws)), threads=2)
    try:
        np.testing.assert_allclose(executable.run([x])[0], want, rtol=1e-4, atol=1e-4)
    finally:
        executable.close()


CASES = [  # (input channels, output channels, groups, blocked groups after merging)
    (128, 128, 32, 8),  # ResNeXt-50 32x4d, first stage: 4 channels a group, 4 merged
    (64, 64, 8, 4),  # RegNet: 8 a group, 2 merged
    (64, 128, 2, 2),  # whole blocks already: 32 in, 64 out a group
    (32, 48, 2, 1),  # 16 in, 24 out a group: merged into one dense conv
    (104, 104, 13, 7),  # RegNet-Y-400MF's second stage: a zero 14th group, then pairs
    (24, 24, 3, 2),  # 3 groups of 8: a fourth, then pairs (8/3 times the multiplications)
]


@pytest.mark.parametrize(("c", "m", "groups", "blocked"), CASES)
@pytest.mark.parametrize("stride", [1, 2])
def test_grouped_convolutions_run_blocked(c: int, m: int, groups: int, blocked: int, stride: int) -> None:
    rng = np.random.default_rng(c + m + groups + stride)
    ws = {
        "w": rng.standard_normal((m, c // groups, 3, 3)).astype(np.float32),
        "b": rng.standard_normal(m).astype(np.float32),
    }
    text = module_text(c, m, groups, stride, bias=True)
    x = rng.standard_normal((1, c, 9, 9)).astype(np.float32)
    want = run(parse_module(make_context(), text), [x], ws)[0]

    module, store = _laid_out(text, ws)
    convs = [op for op in module.walk() if isinstance(op, tg.Conv2dNchwcOp)]
    assert len(convs) == 1 and not any(isinstance(op, tg.Conv2dOp) for op in module.walk())
    got_groups = integer(convs[0].properties, "groups") if "groups" in convs[0].properties else 1
    assert got_groups == blocked
    np.testing.assert_allclose(run(module, [x], store)[0], want, rtol=1e-5, atol=1e-4)
    _assert_cpu_result(text, ws, x, want)


def test_groups_that_need_more_merging_stay_unblocked() -> None:
    assert group_merge(32, 4, 4) == 4 and group_merge(8, 8, 8) == 2 and group_merge(2, 32, 64) == 1
    assert group_merge(16, 2, 2) is None  # 8 groups to a block: 8x the multiplications
    assert group_merge(6, 4, 4) is None  # 4 groups to a block, but 6 do not split into fours
    assert padded_group_merge(13, 8, 8) == (1, 2) and padded_group_merge(55, 8, 8) == (1, 2)
    assert padded_group_merge(8, 8, 8) == (0, 2)  # no padding where the groups divide
    assert padded_group_merge(6, 4, 4) is None  # 8 groups of 4 merged by 4: 5.3x the multiplications
    text = module_text(32, 32, 16, 1, bias=False)
    module = parse_module(make_context(), text)
    PassPipeline(with_weights((TgLayout(),), WeightStore({}))).apply(make_context(), module)
    assert any(isinstance(op, tg.Conv2dOp) for op in module.walk())


PADDED_VIEW = """
func.func @main(%x: tensor<1x48x9x9xf32>) -> tensor<1x104x9x9xf32> {
  %w1 = tg.weight @w1 : tensor<104x48x1x1xf32>
  %w2 = tg.weight @w2 : tensor<104x8x3x3xf32>
  %a = tg.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
    dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x48x9x9xf32>, tensor<104x48x1x1xf32>) -> tensor<1x104x9x9xf32>
  %s = tg.sigmoid %a : tensor<1x104x9x9xf32>
  %y = tg.conv2d %s, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
    dilations = array<i64: 1, 1>, groups = 13 : i64} : (tensor<1x104x9x9xf32>, tensor<104x8x3x3xf32>) -> tensor<1x104x9x9xf32>
  func.return %y : tensor<1x104x9x9xf32>
}
"""


def test_padded_groups_read_the_padding_channels_of_a_blocked_input() -> None:
    """104 channels out of a 1x1 conv live in 7 blocks, the last half padding (sigmoid(0) =
    0.5 there, not zero); the 13-group conv's zero 14th group reads them as they are: no
    conversion back to NCHW and no channel padding between the two convolutions."""
    rng = np.random.default_rng(13)
    ws = {
        "w1": rng.standard_normal((104, 48, 1, 1)).astype(np.float32),
        "w2": rng.standard_normal((104, 8, 3, 3)).astype(np.float32),
    }
    x = rng.standard_normal((1, 48, 9, 9)).astype(np.float32)
    want = run(parse_module(make_context(), PADDED_VIEW), [x], ws)[0]
    module, store = _laid_out(PADDED_VIEW, ws)
    convs = [op for op in module.walk() if isinstance(op, tg.Conv2dNchwcOp)]
    assert len(convs) == 2 and integer(convs[1].properties, "groups") == 7
    assert not any(isinstance(op, tg.PadOp) for op in module.walk())
    transforms = [op for op in module.walk() if isinstance(op, tg.LayoutTransformOp)]
    assert len(transforms) == 2, [str(t) for t in transforms]  # x in, the result out
    np.testing.assert_allclose(run(module, [x], store)[0], want, rtol=1e-5, atol=1e-4)
    _assert_cpu_result(PADDED_VIEW, ws, x, want)
