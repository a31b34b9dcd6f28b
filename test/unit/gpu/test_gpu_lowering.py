"""The GPU lowering on every machine: default GPU schedules for every stage of the example
models (within the hardware's limits, coalesced), PTX for all of them from LLVM's NVPTX
backend, the kernels run by the emulator against the reference and onnxruntime, and the
one-line error where no GPU is usable."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from tessel.dialects import kernel
from tessel.frontends.onnx import import_model
from tessel.passes.kernel.loops.gpu_schedule import default_gpu_schedule
from tessel.passes.kernel.loops.schedule import MAX_GRID, MAX_THREADS
from tessel.pipelines.tensor import compile_for_gpu, lower
from tessel.targets.gpu.nvptx import compile_ptx, emit_ptx_module, stages
from tessel.targets.gpu.ptxas import assemble, find_ptxas
from tessel.targets.reference.interpreter import run

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "models"
sys.path.insert(0, str(EXAMPLES))
MODELS = ["resnet18", "mobilenet_v1", "transformer", "dqn", "dcgan"]


def _model(name: str):  # noqa: ANN202
    model = __import__(name).build()
    rng = np.random.default_rng(3)
    feed = {
        vi.name: rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
        for vi in model.graph.input
    }
    return model, feed


@pytest.mark.parametrize("name", MODELS)
def test_every_stage_gets_a_legal_coalesced_gpu_schedule_and_ptx(name: str) -> None:
    model, _ = _model(name)
    result = import_model(model, source=f"{name}.onnx")
    kernels = result.module.clone()
    lower(kernels, result.weights, stop_after="tg-to-kernel", target="gpu")
    computes = [op for op in kernels.walk() if isinstance(op, kernel.ComputeOp)]
    assert computes
    for op in computes:
        s = default_gpu_schedule(op)
        s.validate(op)
        (gx, gy, gz), (tx, ty, tz) = s.gpu_dims()
        assert tx * ty * tz <= MAX_THREADS and gx <= MAX_GRID[0] and gy <= MAX_GRID[1] and gz <= MAX_GRID[2]
        k = op.spatial_count
        inner = max((d for d in range(k) if op.domain[d] > 1), default=None)
        if inner is not None:  # threadIdx.x walks the innermost (contiguous) axis: coalesced accesses
            (x,) = [l for l in s.loops if l.kind == "thread" and l.dim == 0]
            assert x.axis == inner and x.stride == 1, (op.axis_names, s.loops)
            assert tx * ty * tz >= min(32, math.prod(op.domain[:k])), s.loops  # at least a warp when there is one
    lower(result.module, result.weights, target="gpu")
    fns = stages(result.module)
    assert len(fns) == len(computes)
    ptx = compile_ptx(emit_ptx_module(result.module))
    assert ptx.count(".visible .entry") == len(fns)
    if find_ptxas() is None:  # installed with the test extras (nvidia-cuda-nvcc-cu12)
        pytest.skip("no ptxas to assemble the PTX with")
    resources = assemble(ptx, "sm_90")
    assert set(resources) == {fn.sym_name.data for fn in fns}
    assert all(r.spill_stores == 0 and r.spill_loads == 0 and r.registers <= 255 for r in resources.values()), resources


@pytest.mark.parametrize("name", MODELS)
def test_models_on_the_emulated_gpu_match_the_reference_and_onnxruntime(name: str) -> None:
    model, feed = _model(name)
    inputs = list(feed.values())
    result = import_model(model, source=f"{name}.onnx")
    want = run(result.module.clone(), inputs, result.weights)
    executable, report = compile_for_gpu(result.module, result.weights, emulate=True, threads=2)
    got = executable.run(inputs)
    executable.close()
    theirs = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feed)
    assert report.kernels > 0
    for g, w, t in zip(got, want, theirs):
        scale = float(np.abs(w).max()) or 1.0
        assert float(np.abs(g - w).max()) <= 1e-4 * scale
        assert float(np.abs(g - t).max()) <= 1e-4 * scale


def test_without_a_usable_gpu_the_gpu_target_says_so_in_one_line(tmp_path: Path) -> None:
    """cuda-python missing, no driver, or no device: one line naming which, and the way out."""
    try:
        from tessel.targets.gpu.runtime import open_device

        open_device()
        pytest.skip("a CUDA GPU is usable here: test/gpu runs the device tests")
    except Exception:  # noqa: BLE001 - the point is what the CLI prints
        pass
    m = tmp_path / "m.mlir"
    m.write_text(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = tg.relu %x : tensor<4xf32>\n  func.return %y : tensor<4xf32>\n}\n"
    )
    p = subprocess.run(
        [sys.executable, "-m", "tessel.tools.run", str(m), "--target", "gpu"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode != 0 and p.stderr.count("\n") == 1, p.stderr
    assert "--emulate runs the GPU kernels on this CPU" in p.stderr and "Traceback" not in p.stderr
    assert any(s in p.stderr for s in ("needs cuda-python", "no NVIDIA driver", "no usable CUDA GPU", "no CUDA GPU")), (
        p.stderr
    )


def test_the_gpu_benchmark_workloads_build_and_compute() -> None:
    """bench/gpu.py's modules (a matmul, a conv with bias) through the emulated GPU against
    numpy, and its torch ResNet-18 peer runs (on the CPU build of torch here)."""
    import torch

    from tessel.bench.gpu import conv_module, matmul_module, torch_resnet18
    from tessel.dialects.context import make_context
    from tessel.ir.source import parse_module
    from tessel.ir.weights import WeightStore

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((33, 20)).astype(np.float32), rng.standard_normal((20, 70)).astype(np.float32)
    exe, _ = compile_for_gpu(
        parse_module(make_context(), matmul_module(33, 20, 70), "m"), WeightStore({}), emulate=True
    )
    np.testing.assert_allclose(exe.run([a, b])[0], a @ b, rtol=1e-5, atol=1e-5)
    exe.close()
    module = parse_module(make_context(), conv_module(8, 15, 16, 3, 2), "c")
    ins = [
        rng.standard_normal((1, 8, 15, 15)).astype(np.float32),
        rng.standard_normal((16, 8, 3, 3)).astype(np.float32),
        rng.standard_normal((16, 1, 1)).astype(np.float32),
    ]
    want = torch.nn.functional.conv2d(
        torch.from_numpy(ins[0]), torch.from_numpy(ins[1]), torch.from_numpy(ins[2].reshape(-1)), stride=2, padding=1
    )
    exe, _ = compile_for_gpu(module, WeightStore({}), emulate=True)
    np.testing.assert_allclose(exe.run(ins)[0], want.numpy(), rtol=1e-4, atol=1e-4)
    exe.close()
    with torch.no_grad():
        assert tuple(torch_resnet18(torch)(torch.zeros(1, 3, 224, 224)).shape) == (1, 1000)


def test_ptxas_refusing_ptx_is_one_error() -> None:
    from tessel.ir.diagnostics import TesselError

    if find_ptxas() is None:
        pytest.skip("no ptxas")
    with pytest.raises(TesselError, match="ptxas refused the PTX for sm_90"):
        assemble(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus.instruction; }\n")
