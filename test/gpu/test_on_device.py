"""The GPU target on a GPU: PTX loaded by the driver, kernels launched over their grids,
results against the reference (and the emulator, which must agree exactly in structure),
CUDA-event timing and per-kernel profiles, and the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tessel.bench.gpu import conv_module, matmul_module
from tessel.dialects.context import make_context
from tessel.frontends.onnx import import_model
from tessel.ir.source import parse_module
from tessel.ir.weights import WeightStore
from tessel.pipelines.tensor import compile_for_gpu
from tessel.targets.reference.interpreter import run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "models"
sys.path.insert(0, str(EXAMPLES))


def _close(got: np.ndarray, want: np.ndarray, tol: float = 1e-4) -> None:
    scale = float(np.abs(want).max()) or 1.0
    assert got.shape == want.shape and float(np.abs(got - want).max()) <= tol * scale


@pytest.mark.parametrize("m,k,n", [(64, 64, 64), (100, 37, 129), (1, 512, 1000), (257, 3, 5)])
def test_matmul_with_tails(m: int, k: int, n: int) -> None:
    text = matmul_module(m, k, n)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    exe, _ = compile_for_gpu(parse_module(make_context(), text, "m.mlir"), WeightStore({}))
    (c,) = exe.run([a, b])
    exe.close()
    _close(c, a @ b)


@pytest.mark.parametrize("layer", [(3, 32, 16, 7, 2), (16, 14, 32, 3, 1), (32, 9, 8, 1, 2)])
def test_conv_with_bias(layer: tuple[int, int, int, int, int]) -> None:
    text = conv_module(*layer)
    module = parse_module(make_context(), text, "c.mlir")
    c, hw, oc, k, _ = layer
    rng = np.random.default_rng(1)
    ins = [
        rng.standard_normal((1, c, hw, hw)).astype(np.float32),
        rng.standard_normal((oc, c, k, k)).astype(np.float32),
        rng.standard_normal((oc, 1, 1)).astype(np.float32),
    ]
    want = run(module.clone(), ins, WeightStore({}))
    exe, _ = compile_for_gpu(module, WeightStore({}))
    got = exe.run(ins)
    times = exe.device_times(ins, 5)
    rows = exe.profile(ins, 3)
    exe.close()
    _close(got[0], want[0])
    assert len(times) == 5 and all(t > 0 for t in times)
    assert rows and all(ms > 0 for _, _, ms in rows)


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v1", "transformer", "dqn", "dcgan"])
def test_example_models_on_the_gpu(name: str) -> None:
    model = __import__(name).build()
    rng = np.random.default_rng(7)
    feed = [
        rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
        for vi in model.graph.input
    ]
    result = import_model(model, source=f"{name}.onnx")
    want = run(result.module.clone(), feed, result.weights)
    exe, report = compile_for_gpu(result.module, result.weights)
    got = exe.run(feed)
    again = exe.run(feed)
    exe.close()
    assert report.kernels > 0
    for g, a, w in zip(got, again, want):
        _close(g, w)
        np.testing.assert_array_equal(g, a)  # the same launches give the same bits


def test_tessel_run_on_the_gpu(tmp_path: Path) -> None:
    import resnet18

    path = tmp_path / "r.onnx"
    path.write_bytes(resnet18.build().SerializeToString())
    p = subprocess.run(
        [sys.executable, "-m", "tessel.tools.run", str(path), "--target", "gpu", "--check", "--time", "10"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "check against onnxruntime" in p.stdout and "on the GPU (CUDA events" in p.stdout
