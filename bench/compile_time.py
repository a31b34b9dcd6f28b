"""Compile time of the CPU target: cold (empty object cache) and warm, stage by stage.

    python -m tessel.bench.compile_time [--zoo build/zoo] [--models resnet18,densenet121] [--runs 3]

Each model is imported from ONNX and compiled for the CPU (`compile_for_cpu`, 2 threads) in
this process, `--runs` times cold (a fresh, empty TESSEL_CACHE_DIR each time) and as often
warm (the object cache filled by the cold runs: the passes run again, LLVM does not), and
as often through `tessel.compile` with the model cache holding the model (`cached`: no pass
and no LLVM run; targets/cpu/model_cache.py); the median of each is reported with the cold
run's per-stage breakdown (`tessel-run --time-passes`' rows: import, every pass, LLVM
emission, the JIT). Without `--zoo` the model is the example ResNet-18 (examples/models/resnet18.py,
224x224). Python's own start-up and the first import of the compiler's modules are not
counted (one compile runs first, untimed), nor is collecting the cyclic IR an earlier
compile in this process left (each timed compile starts after `gc.collect()`: a process
that compiles once has none, and the collection, 0.5 s after ResNet-18, fell at random
into the next run's import). The last line is

    RESULT compile_time max_cold_s=<x> models=<n> resnet18_cold_s=<x> resnet18_warm_s=<x> resnet18_cached_s=<x> ...
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import onnx

import tessel
from tessel.bench.common import environment, log
from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import CompileReport, compile_for_cpu

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "models"


def _models(zoo: Path | None, names: list[str] | None) -> list[tuple[str, onnx.ModelProto, dict]]:
    if zoo is None:
        sys.path.insert(0, str(EXAMPLES))
        resnet18 = __import__("resnet18")  # examples/models, put on the path above

        return [("resnet18", resnet18.build(), {})]
    import numpy as np

    index = json.loads((zoo / "index.json").read_text())
    chosen = [n for n in index if names is None or n in names]
    out = []
    for name in chosen:
        inputs = dict(np.load(zoo / f"{name}.inputs.npz"))
        out.append((name, onnx.load(str(zoo / f"{name}.onnx")), {k: list(v.shape) for k, v in inputs.items()}))
    return out


def compile_once(model: onnx.ModelProto, shapes: dict, cache: str) -> tuple[float, CompileReport]:
    os.environ["TESSEL_CACHE_DIR"] = cache
    gc.collect()  # (the last compile's cyclic IR: its collection is not this compile's time)
    start = time.perf_counter()
    result = import_model(model, source="model.onnx", input_shapes=shapes)
    imported = time.perf_counter() - start
    executable, report = compile_for_cpu(result.module, result.weights, threads=2)
    seconds = time.perf_counter() - start
    executable.close()
    report.seconds = {"import": imported, **report.seconds}
    return seconds, report


def compile_cached(model: onnx.ModelProto, shapes: dict, cache: str) -> float:
    """`tessel.compile` of a model the model cache in `cache` holds (the caller filled it)."""
    import tessel

    os.environ["TESSEL_CACHE_DIR"] = cache
    gc.collect()
    start = time.perf_counter()
    compiled = tessel.compile(model, threads=2, input_shapes=shapes)
    seconds = time.perf_counter() - start
    assert "model-cache" in compiled.report.seconds, "the model cache missed"
    compiled.close()
    return seconds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--zoo", type=Path, help="the exported model zoo (make zoo: build/zoo)")
    p.add_argument("--models", help="comma-separated names (default: all)")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    models = _models(args.zoo, args.models.split(",") if args.models else None)
    log(environment(2))
    saved = os.environ.get("TESSEL_CACHE_DIR")
    os.environ["TESSEL_MODEL_CACHE"] = "1"
    fields: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        compile_once(models[0][1], models[0][2], os.path.join(scratch, "first"))  # imports, untimed
        for name, model, shapes in models:
            cold, reports = [], []
            for run in range(args.runs):
                seconds, report = compile_once(model, shapes, os.path.join(scratch, f"{name}-{run}"))
                cold.append(seconds)
                reports.append(report)
            filled = os.path.join(scratch, f"{name}-0")
            warm = [compile_once(model, shapes, filled)[0] for _ in range(args.runs)]
            tessel.compile(model, threads=2, input_shapes=shapes).close()  # into the model cache
            cached = [compile_cached(model, shapes, filled) for _ in range(args.runs)]
            median = reports[cold.index(sorted(cold)[len(cold) // 2])]
            log(
                f"\n{name}: cold {statistics.median(cold):.2f} s, warm {statistics.median(warm):.2f} s, "
                f"from the model cache {statistics.median(cached):.3f} s (median of {args.runs})"
            )
            log(median.time_passes())
            fields[f"{name}_cold_s"] = statistics.median(cold)
            fields[f"{name}_warm_s"] = statistics.median(warm)
            fields[f"{name}_cached_s"] = statistics.median(cached)
    if saved is None:
        os.environ.pop("TESSEL_CACHE_DIR", None)
    else:
        os.environ["TESSEL_CACHE_DIR"] = saved
    colds = [v for k, v in fields.items() if k.endswith("_cold_s")]
    summary = " ".join(f"{k}={v:.2f}" for k, v in fields.items())
    print(f"RESULT compile_time max_cold_s={max(colds):.2f} models={len(colds)} {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
