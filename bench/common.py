"""Measurement helpers shared by the benchmarks: quiet-machine checks, interleaved timing,
environment lines. The machine is shared, so every peer runs in the same process,
alternating with Tessel, and medians are reported with the idle share seen."""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

from tessel.ir.machine import cpu_model
from tessel.tune.quiet import cpu_idle, wait_for_quiet  # noqa: F401  (the benchmarks use them from here)


def timed(fn: Callable[[], object], min_seconds: float = 0.05) -> float:
    """Seconds per call, calling fn often enough that one sample lasts about min_seconds."""
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    reps = max(1, int(min_seconds / max(once, 1e-6)))
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - start) / reps


def interleaved(
    candidates: dict[str, Callable[[], object]], rounds: int, settle: float = 0.0
) -> dict[str, list[float]]:
    """Per candidate, `rounds` samples taken in alternation (after one warm-up each).

    With `settle` > 0, each sample starts after that many seconds of sleep and one untimed
    call: runtimes whose worker threads spin after a run (onnxruntime, libgomp) would
    otherwise take the CPUs from the candidate measured next."""
    for fn in candidates.values():
        fn()
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, fn in candidates.items():
            if settle > 0:
                time.sleep(settle)
                fn()
            samples[name].append(timed(fn))
    return samples


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def environment(threads: int) -> str:
    import llvmlite
    import numpy
    import onnx
    import xdsl

    try:
        import onnxruntime

        ort = onnxruntime.__version__
    except ImportError:
        ort = "missing"
    from tessel.targets.cpu import cpu_target

    return (
        f"python {platform.python_version()}, xdsl {xdsl.__version__ if hasattr(xdsl, '__version__') else '0.74'}, "
        f"llvmlite {llvmlite.__version__}, numpy {numpy.__version__}, onnx {onnx.__version__}, onnxruntime {ort}; "
        f"{cpu_model()} ({cpu_target.current().details}); {os.cpu_count()} cpus, {threads} threads"
    )


def log(line: str) -> None:
    print(line, file=sys.stdout, flush=True)
