"""The register tile (passes/kernel/loops/register_tile.py): the shapes chosen for AVX-512
(32 registers) and AVX2 (16) always fit and hide the FMA latency, and convolutions whose
tiles span output-channel blocks compute what the reference semantics compute, on both."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module
from tessel.ir.weights import WeightStore
from tessel.passes.kernel.loops.register_tile import MAX_COLS, MAX_ROWS, VectorUnit
from tessel.pipelines.tensor import compile_for_cpu, lower
from tessel.targets.cpu import cpu_target
from tessel.targets.reference.interpreter import run

AVX512 = VectorUnit.for_bits(512)
AVX2 = VectorUnit.for_bits(256)


def test_the_register_files() -> None:
    assert (AVX512.registers, AVX2.registers, VectorUnit.for_bits(128).registers) == (32, 16, 16)


@pytest.mark.parametrize(
    ("unit", "rows", "cols", "want"),
    [
        # ResNet's 56-wide rows by four output-channel blocks: 14 x 2 (28 accumulators)
        (AVX512, 56, 4, (14, 2)),
        # a 7x7 map by 32 blocks: 7 rows (not 6 rows and an overlapping tile of 6 more)
        (AVX512, 7, 32, (7, 2)),
        # one row (a matrix-vector product): many columns instead
        (AVX512, 1, 64, (1, 8)),
        # one column (16 output channels): rows only, broadcasts folded into the FMAs
        (AVX512, 56, 1, (14, 1)),
        # AVX2: 16 registers hold 4 x 2 accumulators and their operands, not 14 x 2
        (AVX2, 56, 2, (4, 2)),
    ],
)
def test_chosen_tiles(unit: VectorUnit, rows: int, cols: int, want: tuple[int, int]) -> None:
    assert unit.choose(rows, cols) == want


@pytest.mark.parametrize("unit", [AVX512, AVX2], ids=["avx512", "avx2"])
def test_every_chosen_tile_fits_and_keeps_the_fma_units_busy(unit: VectorUnit) -> None:
    """Wherever the extents allow 8 or more accumulators, the chosen tile issues at least
    three quarters of the FMAs the units can (by the model's own limits: issue, loads,
    latency)."""
    for row_extent in range(1, 70):
        for col_extent in (1, 2, 3, 4, 6, 8, 12, 16, 32, 64):
            rows, cols = unit.choose(row_extent, col_extent)
            assert unit.fits(rows, cols), (row_extent, col_extent, rows, cols)
            assert 1 <= rows <= min(row_extent, MAX_ROWS) and col_extent % cols == 0 and cols <= MAX_COLS
            if row_extent >= 8 or (row_extent >= 4 and col_extent >= 2):
                rate = rows * cols / unit.step_cycles(rows, cols)
                assert rate >= 0.75 * unit.fma_per_cycle, (row_extent, col_extent, rows, cols)


def test_a_tile_that_overflows_the_registers_does_not_fit() -> None:
    assert AVX512.fits(14, 2) and not AVX512.fits(7, 4) and AVX512.fits(6, 4)
    assert AVX2.fits(14, 1) and not AVX2.fits(6, 2 + 1) and AVX2.fits(6, 2)


CONVS = {
    # 1x1, 28 wide, 96 output channels (6 blocks: tiles of 14 pixels x 2 blocks)
    "pointwise 64->96 @28": (1, 64, 96, 28, 1, 1, 0),
    # 3x3 stride 2 to a 7x7 map, 48 channels (3 blocks: an odd count)
    "3x3/2 32->48 @14": (1, 32, 48, 14, 3, 2, 1),
    # 3x3 over 10 columns: a clamped last row tile
    "3x3 16->64 @10": (1, 16, 64, 10, 3, 1, 1),
    # 1x1 over 512 channels: split-K, the bias and ReLU on the last pass only
    "pointwise 512->32 @14 (split-K)": (1, 512, 32, 14, 1, 1, 0),
    # 3x3 over 256 channels, 8 wide: split-K with the taps inside each chunk
    "3x3 256->32 @8 (split-K)": (1, 256, 32, 8, 3, 1, 1),
    # 1x1 over 1024 channels on a 7x7 map: split-K with a clamped last row tile, which
    # stores only the rows the tile before it did not
    "pointwise 1024->32 @7 (split-K, clamped)": (1, 1024, 32, 7, 1, 1, 0),
}


def _conv(n: int, ic: int, oc: int, hw: int, k: int, s: int, p: int) -> tuple[str, list[tuple[int, ...]]]:
    o = (hw + 2 * p - k) // s + 1
    text = f"""func.func @main(%x: tensor<{n}x{ic}x{hw}x{hw}xf32>, %w: tensor<{oc}x{ic}x{k}x{k}xf32>, %b: tensor<{oc}xf32>) -> tensor<{n}x{oc}x{o}x{o}xf32> {{
      %y = tg.conv2d %x, %w, %b {{strides = array<i64: {s}, {s}>, pads = array<i64: {p}, {p}, {p}, {p}>, dilations = array<i64: 1, 1>, groups = 1 : i64}} : (tensor<{n}x{ic}x{hw}x{hw}xf32>, tensor<{oc}x{ic}x{k}x{k}xf32>, tensor<{oc}xf32>) -> tensor<{n}x{oc}x{o}x{o}xf32>
      %r = tg.relu %y : tensor<{n}x{oc}x{o}x{o}xf32>
      func.return %r : tensor<{n}x{oc}x{o}x{o}xf32>
    }}"""
    return text, [(n, ic, hw, hw), (oc, ic, k, k), (oc,)]


@pytest.mark.parametrize("mcpu", ["native", "x86-64-v3"])
@pytest.mark.parametrize("name", sorted(CONVS))
def test_convolutions_with_channel_block_tiles_compute_the_reference(name: str, mcpu: str) -> None:
    text, shapes = _conv(*CONVS[name])
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    want = run(parse_module(make_context(), text), inputs, {})[0]
    target = cpu_target.named(mcpu)
    if target.missing_here():
        pytest.skip(f"this CPU cannot run code for {mcpu}")
    with cpu_target.use(target):
        module = parse_module(make_context(), text)
        lower(module, WeightStore({}))
        schedules = [
            str(op.attributes["kernel.schedule"]) for op in module.walk() if "kernel.schedule" in op.attributes
        ]
        if target.vector_bits == 512:  # the columns are output-channel blocks
            assert any("mo/1x" in s and ":unroll mi/1x16:vector" in s for s in schedules), schedules
        if "split-K" in name and target.vector_bits < 512:  # the channels' chunk loop is outside the tile
            assert any("co/" in s.split("|acc|")[0] for s in schedules), schedules
        executable, _ = compile_for_cpu(parse_module(make_context(), text), WeightStore({}), threads=2)
    try:
        got = executable.run(inputs)[0]
    finally:
        executable.close()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))
