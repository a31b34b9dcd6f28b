"""The GPU runtime's own logic on every machine, against a stand-in CUDA driver
(fake_cuda.py) whose "device" runs the host build of the same kernels: the plan's buffers
(weights, the arena and views into it, temporaries, ports) on the device, kernel parameters
packed the driver's way, memref.copy as device copies, each launch's grid and block those
of its stage, and the results equal to the reference."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from fake_cuda import FakeDriver

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_gpu
from tessel.targets.reference.interpreter import run

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "models"
sys.path.insert(0, str(EXAMPLES))


@pytest.mark.parametrize("name", ["dqn"])  # (each run emulates every GPU thread: a small model)
def test_models_through_the_runtime(fake: FakeDriver, name: str) -> None:
    model = __import__(name).build()
    rng = np.random.default_rng(5)
    feed = [
        rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
        for vi in model.graph.input
    ]
    result = import_model(model, source=f"{name}.onnx")
    want = run(result.module.clone(), feed, result.weights)
    exe, report = compile_for_gpu(result.module, result.weights)
    assert exe.arch == "sm_90" and ".target sm_90" in exe.ptx
    got = exe.run(feed)
    kernels = sum(1 for l in exe.launches if l.fn is not None)
    assert len(fake.launches) == kernels >= report.stages  # every launch of the plan, some stages more than once
    assert fake.graph_launches == 1 and exe.graph is not None  # the plan ran as one captured graph
    for g, w in zip(got, want):
        assert float(np.abs(g - w).max()) <= 1e-4 * (float(np.abs(w).max()) or 1.0)
    # views into one arena share its device allocation (at their offsets)
    assert len(exe.device) < len(exe.keep)
    times = exe.device_times(feed, 2, warmup=0)
    rows = exe.profile(feed, 1)
    assert times == [0.25] * 2 and len(rows) == len(exe.launches)
    exe.close()
    assert not fake.memory  # every allocation freed


def test_a_grid_the_driver_refuses_is_one_error(fake: FakeDriver) -> None:
    from tessel.bench.gpu import matmul_module
    from tessel.dialects.context import make_context
    from tessel.ir.diagnostics import TesselError
    from tessel.ir.source import parse_module
    from tessel.ir.weights import WeightStore

    exe, _ = compile_for_gpu(parse_module(make_context(), matmul_module(8, 4, 8), "m"), WeightStore({}))
    fake.dims = {k: ((1, 1, 1), (1, 1, 1)) for k in fake.dims}  # the "device" now expects other dims
    with pytest.raises(TesselError, match="CUDA cuLaunchKernel: CUDA_ERROR_INVALID_VALUE"):
        exe.run([np.zeros((8, 4), np.float32), np.zeros((4, 8), np.float32)])
    exe.close()


def test_the_gpu_benchmark_runs_start_to_end(fake: FakeDriver, capsys) -> None:
    """bench/gpu.py's whole flow (compile, run, check against the peer, interleaved timing,
    the table, the RESULT line) as a dry run: small workloads, torch on the CPU, the stand-in
    driver. Device time is scarce: a script error must not be found on the device."""
    from tessel.bench import gpu

    assert gpu.main(["--dry-run", "--runs", "5", "--convs", "C2,C9,C11"]) == 0
    out = capsys.readouterr().out
    assert "sgemm 64" in out and "C9" in out and "RESULT gpu_dry_run sgemm64=" in out, out
    convs = [line.split() for line in out.splitlines() if line.startswith("C")]
    assert len(convs) == 3 and all(float(r[4]) < 1e-4 for r in convs), out  # each checked against torch's conv2d
