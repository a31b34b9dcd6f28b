"""tg-winograd: Lavin's matrices against the direct correlation, tg.conv2d_winograd's
reference against the direct convolution, the per-layer choice of tile, and models
compiled for the CPU through the Winograd kernels against the reference semantics of the
direct convolution (any size: tiles half outside the output, asymmetric padding, fused
epilogues)."""

from __future__ import annotations

import math

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tessel.dialects.tg.reference import conv2d_nchwc, conv2d_winograd
from tessel.frontends.onnx import import_model
from tessel.passes.tg import winograd
from tessel.passes.tg.winograd import MATRICES, MAX_WEIGHT_BYTES, MIN_OUTPUTS, choose_tile, transform_weight
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.reference.interpreter import run


@pytest.mark.parametrize("m", [2, 4])
def test_the_matrices_compute_the_correlation(m: int) -> None:
    """Y = A^T [(G g G^T) . (B^T d B)] A is the m x m valid correlation of d with g."""
    bt, g_mat, at = MATRICES[m]
    rng = np.random.default_rng(m)
    for _ in range(5):
        d, g = rng.standard_normal((m + 2, m + 2)), rng.standard_normal((3, 3))
        y = at @ ((g_mat @ g @ g_mat.T) * (bt @ d @ bt.T)) @ at.T
        direct = np.array([[np.sum(d[i : i + 3, j : j + 3] * g) for j in range(m)] for i in range(m)])
        np.testing.assert_allclose(y, direct, rtol=0, atol=1e-12)


def test_f4_float32_error_is_that_of_its_points() -> None:
    """F(4, 3)'s float32 error, as the kernels round (G g G^T in float64 then float32; the
    input transform, the channel sums and the output transform in float32), over 64
    channels against the float64 direct sum. Lavin & Gray's points 0, +-1, +-2 gave a median
    1.95e-6 of the output's scale here (worst 1.27e-5); the points used, 0, +-2/3, +-3/2,
    8.8e-7 (worst 2.5e-6)."""
    bt, g_mat, at = MATRICES[4]
    rng = np.random.default_rng(1)
    trials, channels = 200, 64
    d = rng.standard_normal((trials, channels, 6, 6))
    g = rng.standard_normal((trials, channels, 3, 3)) / math.sqrt(9 * channels)
    windows = np.lib.stride_tricks.sliding_window_view(d, (3, 3), axis=(2, 3))
    direct = np.einsum("tcijkl,tckl->tij", windows, g)
    f32 = np.float32
    u = np.einsum("ij,tcjk,lk->tcil", g_mat, g, g_mat).astype(f32)
    v = np.einsum("ij,tcjk,lk->tcil", bt.astype(f32), d.astype(f32), bt.astype(f32))
    y = np.einsum("ij,tjk,lk->til", at.astype(f32), (u * v).sum(1, dtype=f32), at.astype(f32))
    error = np.abs(y - direct).max((1, 2)) / np.abs(direct).max((1, 2))
    assert np.median(error) < 1.2e-6 and error.max() < 5e-6, (np.median(error), error.max())


@pytest.mark.parametrize("m", [2, 4])
@pytest.mark.parametrize(
    "h, w, pads", [(7, 7, (1, 1, 1, 1)), (9, 6, (1, 1, 1, 1)), (8, 8, (0, 0, 0, 0)), (5, 11, (2, 1, 0, 1))]
)
def test_the_reference_is_the_convolution(m: int, h: int, w: int, pads: tuple[int, ...]) -> None:
    rng = np.random.default_rng(h * w)
    x = rng.standard_normal((1, 2, h, w, 4)).astype(np.float32)
    wb = rng.standard_normal((3, 2, 3, 3, 4, 4)).astype(np.float32)
    bias = rng.standard_normal(12).astype(np.float32)
    bt, _, at = MATRICES[m]
    y = conv2d_winograd(x, transform_weight(wb, m), bt.astype(np.float32), at.astype(np.float32), bias, pads)
    direct = conv2d_nchwc(x, wb, bias, (1, 1), pads, (1, 1))
    assert y.shape == direct.shape
    # F(4, 3)'s transforms scale values by up to 10x: ~10x the float32 rounding of the weights
    np.testing.assert_allclose(y, direct, rtol=0, atol=(2e-5 if m == 4 else 2e-6) * np.abs(direct).max())


def test_the_tile_is_chosen_by_reuse_and_weight_size() -> None:
    # ResNet-18's 3x3 stride-1 layers, 56x56x64 to 7x7x512 (4 tiles of 4x4: 64 outputs for
    # each transformed weight), all F(4, 3)
    for size, channels in ((56, 64), (28, 128), (14, 256), (7, 512)):
        assert choose_tile(1, size, size, channels, channels, MIN_OUTPUTS, MAX_WEIGHT_BYTES) == 4
    assert choose_tile(1, 4, 4, 16, 16, MIN_OUTPUTS, MAX_WEIGHT_BYTES) is None  # 16 outputs a weight
    assert choose_tile(4, 4, 4, 16, 16, MIN_OUTPUTS, MAX_WEIGHT_BYTES) == 4  # the batch's tiles count
    # F(4, 3)'s 151 MB over the limit, F(2, 3)'s 64 MiB not; then neither
    assert choose_tile(1, 14, 14, 1024, 1024, MIN_OUTPUTS, MAX_WEIGHT_BYTES) == 2
    assert choose_tile(1, 14, 14, 1024, 2048, MIN_OUTPUTS, MAX_WEIGHT_BYTES) is None


def _conv_model(
    c: int, k: int, h: int, w: int, pads: list[int], relu: bool, residual: bool, seed: int
) -> tuple[onnx.ModelProto, np.ndarray]:
    rng = np.random.default_rng(seed)
    weight = (rng.standard_normal((k, c, 3, 3)) / math.sqrt(9 * c)).astype(np.float32)
    bias = rng.standard_normal(k).astype(np.float32)
    oh, ow = h + pads[0] + pads[2] - 2, w + pads[1] + pads[3] - 2
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y0"], pads=pads)]
    last = "y0"
    if residual:
        nodes.append(helper.make_node("Add", [last, "r"], ["y1"]))
        last = "y1"
    if relu:
        nodes.append(helper.make_node("Relu", [last], ["y2"]))
        last = "y2"
    nodes[-1].output[0] = "y"
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h, w])]
    if residual:
        inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, k, oh, ow]))
    graph = helper.make_graph(
        nodes,
        "conv",
        inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, k, oh, ow])],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), rng.standard_normal(
        (1, k, oh, ow)
    ).astype(np.float32)


@pytest.mark.parametrize(
    "c, k, h, w, pads, relu, residual, tile",
    [
        (32, 32, 23, 17, [1, 1, 1, 1], True, False, 4),  # tiles half outside, ReLU fused
        (16, 48, 9, 10, [1, 1, 1, 1], False, True, 2),  # F(2, 3): 9x10 in 5x5 tiles, residual Add
        (32, 16, 20, 20, [0, 1, 2, 1], True, True, 4),  # asymmetric padding, both epilogues
    ],
)
def test_compiled_winograd_convolutions_compute_the_direct_convolution(
    c: int, k: int, h: int, w: int, pads: list[int], relu: bool, residual: bool, tile: int, monkeypatch
) -> None:
    model, r = _conv_model(c, k, h, w, pads, relu, residual, seed=c + k + h)
    x = np.random.default_rng(0).standard_normal((1, c, h, w)).astype(np.float32)
    inputs = [x, r] if residual else [x]
    reference = import_model(model, source="conv.onnx")
    (expected,) = run(reference.module, inputs, reference.weights)
    chosen = choose_tile(1, expected.shape[2], expected.shape[3], c, k, MIN_OUTPUTS, MAX_WEIGHT_BYTES)
    if chosen != tile:  # (F(2, 3) is chosen for layers too large for a unit test)
        monkeypatch.setattr(winograd, "choose_tile", lambda *_: tile)
    result = import_model(model, source="conv.onnx")
    executable, _ = compile_for_cpu(result.module, result.weights, threads=2)
    try:
        assert "conv2d_winograd" in executable.llvm_ir
        (got,) = executable.run(inputs)
    finally:
        executable.close()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5 * np.abs(expected).max())
