"""Transposed tiles (passes/kernel/loops/transpose_tile.py): the shuffle network is a
transpose for every width, and copies that transpose (layout changes into and out of
NCHW16c, transposes of 2 and 4 axes, sizes that are and are not multiples of the width)
compiled for the CPU compute what the reference semantics compute."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module
from tessel.ir.weights import WeightStore
from tessel.passes.kernel.loops.transpose_tile import WIDTHS, transpose_masks
from tessel.pipelines.tensor import compile_for_cpu, lower
from tessel.targets.reference.interpreter import run


@pytest.mark.parametrize("width", WIDTHS)
def test_the_shuffles_transpose(width: int) -> None:
    tile = np.arange(width * width).reshape(width, width)
    rows = [tile[i].copy() for i in range(width)]
    stages = transpose_masks(width)
    assert len(stages) == width.bit_length() - 1
    for s, lo, hi in stages:
        for i in range(width):
            if i & s:
                continue
            both = np.concatenate([rows[i], rows[i + s]])
            rows[i], rows[i + s] = both[lo], both[hi]
    np.testing.assert_array_equal(np.stack(rows), tile.T)


def _transpose(shape: tuple[int, ...], perm: tuple[int, ...]) -> str:
    out = tuple(shape[p] for p in perm)
    t = "x".join(map(str, shape))
    o = "x".join(map(str, out))
    return f"""func.func @main(%x: tensor<{t}xf32>) -> tensor<{o}xf32> {{
      %y = tg.transpose %x {{perm = array<i64: {", ".join(map(str, perm))}>}} : tensor<{t}xf32> -> tensor<{o}xf32>
      func.return %y : tensor<{o}xf32>
    }}"""


def _conv(c: int, hw: int) -> str:
    """A 1x1 convolution: its input goes into NCHW16c and its output back (two copies that
    transpose, one with its spatial extent a multiple of 16 and one not when hw is not)."""
    return f"""func.func @main(%x: tensor<1x{c}x{hw}x{hw}xf32>, %w: tensor<{c}x{c}x1x1xf32>) -> tensor<1x{c}x{hw}x{hw}xf32> {{
      %y = tg.conv2d %x, %w {{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64}} : (tensor<1x{c}x{hw}x{hw}xf32>, tensor<{c}x{c}x1x1xf32>) -> tensor<1x{c}x{hw}x{hw}xf32>
      func.return %y : tensor<1x{c}x{hw}x{hw}xf32>
    }}"""


CASES = {
    # (text, input shapes, how many stages transpose)
    "2-d 16x16": (_transpose((16, 16), (1, 0)), [(16, 16)], 1),
    "2-d 40x24 (tails: overlapping tiles)": (_transpose((40, 24), (1, 0)), [(40, 24)], 1),
    "4-d attention keys [1,4,37,32] -> [1,4,32,37]": (_transpose((1, 4, 37, 32), (0, 1, 3, 2)), [(1, 4, 37, 32)], 1),
    "2-d 10x40 (10 output columns: tiles of 8)": (_transpose((10, 40), (1, 0)), [(10, 40)], 1),
    "2-d 40x6 (6 output rows: too few for a tile)": (_transpose((40, 6), (1, 0)), [(40, 6)], 0),
    "NCHW16c in and out, 28x28": (_conv(32, 28), [(1, 32, 28, 28), (32, 32, 1, 1)], 2),
    "NCHW16c in and out, 20x20": (_conv(48, 20), [(1, 48, 20, 20), (48, 48, 1, 1)], 2),
    # rows of 14 and 7, shorter than a block of 16 channels: into NCHW16c by 8x8 tiles
    # (half a block each), tails overlapping
    "NCHW16c in and out, 14x14": (_conv(32, 14), [(1, 32, 14, 14), (32, 32, 1, 1)], 2),
    "NCHW16c in and out, 7x7 (into NCHW16c: too short for 8x8)": (_conv(32, 7), [(1, 32, 7, 7), (32, 32, 1, 1)], 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transposing_copies_compute_what_the_reference_computes(name: str) -> None:
    text, shapes, tiled = CASES[name]
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    want = run(parse_module(make_context(), text), inputs, {})[0]
    module = parse_module(make_context(), text)
    lower(module, WeightStore({}))
    schedules = [str(op.attributes["kernel.schedule"]) for op in module.walk() if "kernel.schedule" in op.attributes]
    shuffled = [s for s in schedules if ":unroll" in s and ":vector" in s and "|acc|" not in s]
    assert len(shuffled) == tiled, schedules
    executable, _ = compile_for_cpu(parse_module(make_context(), text), WeightStore({}), threads=2)
    try:
        got = executable.run(inputs)[0]
    finally:
        executable.close()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))
