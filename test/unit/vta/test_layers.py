"""ResNet-18's C2-C12 and a quantized matmul run bit-exact on the simulated VTA with zero
hazards, with 1, 2 and (on two layers) 4 virtual threads; layers VTA cannot run are refused
with the reason; latency hiding never makes a layer slower in the cycle model."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.dialects.vta.config import preset
from tessel.dialects.vta.layer import Conv2dLayer, matmul_layer, random_operands, resnet_layer
from tessel.dialects.vta.reference import conv2d
from tessel.passes.vta.emit.emitter import CodegenError, compile_layer
from tessel.passes.vta.tiling.search import Tiling
from tessel.targets.vta.runtime import run_layer

CFG = preset("pynq")
LAYERS = [f"C{i}" for i in range(2, 13)]


def _run(layer: Conv2dLayer, vt: int, seed: int = 0):
    x, w, b = random_operands(layer, seed)
    result = run_layer(layer, compile_layer(layer, CFG, vt), x, w, b)
    assert result.hazards.ok, result.hazards.lines(result.program)
    assert np.array_equal(result.output, conv2d(layer, x, w, b)), f"{layer.name} vt={vt} differs"
    return result


@pytest.mark.parametrize("name", LAYERS)
def test_resnet_layer_bit_exact(name):
    one, two = _run(resnet_layer(name), 1), _run(resnet_layer(name), 2)
    assert two.cycles.cycles <= one.cycles.cycles


@pytest.mark.parametrize("name", ["C6", "C11"])
def test_four_virtual_threads(name):
    _run(resnet_layer(name), 4)


@pytest.mark.parametrize(("m", "k", "n", "relu"), [(64, 256, 128, False), (16, 64, 48, True), (1, 512, 16, False)])
def test_quantized_matmul(m, k, n, relu):
    for vt in (1, 2):
        _run(matmul_layer("mm", m, k, n, shift=10, relu=relu), vt)


def test_epilogue_variants():
    """No bias, no shift, no clip (STORE then truncates, as tg.cast does), asymmetric padding."""
    layer = Conv2dLayer("plain", 32, 9, 11, 32, (3, 3), 2, (0, 1, 2, 1), bias=False)
    _run(layer, 2, seed=5)
    _run(Conv2dLayer("clip", 16, 6, 6, 16, (3, 3), 1, (1, 1, 1, 1), True, 4, True, (10, 60)), 1, seed=6)


def test_layers_vta_cannot_run_are_refused_with_the_reason():
    with pytest.raises(CodegenError, match="C1 does not fit VTA: 3 input channels are not a multiple of 16"):
        compile_layer(resnet_layer("C1"), CFG)
    with pytest.raises(CodegenError, match="virtual threads must be 1, 2 or 4"):
        compile_layer(resnet_layer("C2"), CFG, vt=3)
    with pytest.raises(CodegenError, match=r"tiling rows=56 .* does not fit: inp needs"):
        compile_layer(resnet_layer("C2"), CFG, 2, Tiling(56, 4, 4, 2))
    wide = Conv2dLayer("wide", 16, 1, 5000, 16, (1, 1))
    with pytest.raises(CodegenError, match="does not fit"):
        compile_layer(wide, CFG)
