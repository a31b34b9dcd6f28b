"""A `tessel-tune --target gpu` record applies where `tessel-run --target gpu` compiles:
the tuner extracts its tasks from the model lowered by the GPU's graph passes, so every
stage compile_for_gpu looks up has a task. (On the H200 the tuner once tuned the CPU's
stages, a packed dense kernel for a matmul, and the stages before kernel-simplify-indices,
whose keys differ from the ones the compiler looks up: almost no record applied.) No GPU needed:
the records are written here, as the tuner writes them, for a made-up GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from tessel.api.tuning import kernel_module
from tessel.bench.gpu import conv_module, matmul_module
from tessel.dialects.context import make_context
from tessel.ir.source import parse_module
from tessel.ir.weights import WeightStore
from tessel.passes.sched.tuning.records import Records
from tessel.pipelines.tensor import lower
from tessel.tune import gpu_space
from tessel.tune.measure import _schedule_text
from tessel.tune.task import extract_tasks

HOST = "Test GPU sm_90"
MODULES = {
    "matmul": matmul_module(256, 128, 192),  # the CPU packs the weights of a dense layer
    "conv": conv_module(64, 28, 64, 3, 1),  # kernel-simplify-indices rewrites its indices
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_gpu_records_apply_to_every_gpu_stage(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(MODULES[name])
    tasks = extract_tasks(kernel_module(str(path), target="gpu"), HOST)
    records = Records(tmp_path / "gpu.jsonl")
    records.append(
        {
            "key": t.key,
            "stage": t.stage,
            "target": "gpu",
            "host": HOST,
            "knobs": {"tx": 32},
            "schedule": _schedule_text(t, {"tx": 32}, gpu_space),
            "seconds": 1e-4,
            "best": 1e-4,
            "error": None,
        }
        for t in tasks
    )
    module = parse_module(make_context(), MODULES[name], path.name)
    _, report = lower(module, WeightStore({}), records=str(records.path), target="gpu", host=HOST)
    assert report.untuned == [] and report.tuned == report.stages > 0
    if name == "matmul":  # the CPU's tasks are not the GPU's: records of them would apply nowhere
        cpu_keys = {t.key for t in extract_tasks(kernel_module(str(path)), HOST)}
        assert cpu_keys.isdisjoint(t.key for t in tasks)
