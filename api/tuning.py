"""`tessel.tune`: search schedules for every kernel stage of a model, measured on this
machine, into a tuning log that `tessel.compile(..., records=...)` then applies.

    import tessel
    report = tessel.tune("model.onnx", trials=64, records="model.jsonl")  # a tqdm bar on stderr
    print(report)                                    # per stage: default and tuned ms, GFLOP/s
    fast = tessel.compile("model.onnx", records="model.jsonl")

The search is Ansor's in structure (tune/): a space per stage from its iteration domain, a
gradient-boosted cost model over loop features, evolutionary search, candidates built in
worker processes and checked against the default schedule before they are timed. The log
is appended to after every batch: a rerun resumes where it ended, and `trials` counts what
the log already holds. `tessel-tune` is the command-line layer over this function.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tessel.runtime.errors import TesselError

if TYPE_CHECKING:
    import numpy as np
    import onnx
    from xdsl.dialects.builtin import ModuleOp

    from tessel.tune.tuner import Progress, TaskState

__all__ = ["StageResult", "TuningReport", "kernel_module", "tune"]

SEARCHES = ("evolve", "anneal", "random")
TIMINGS = ("in-model", "cold", "warm")  # where candidates are timed (tessel/tune/measure.py)


@dataclass(frozen=True)
class StageResult:
    """One kernel stage after tuning: launches per inference, default and best time."""

    stage: str
    launches: int
    default_ms: float | None  # None: the budget ended before it was measured
    tuned_ms: float | None
    gflops: float

    @property
    def speedup(self) -> float | None:
        return self.default_ms / self.tuned_ms if self.default_ms and self.tuned_ms else None


@dataclass(frozen=True)
class TuningReport:
    """What a tuning run found, stage by stage, and where the log is."""

    stages: list[StageResult]
    records: str
    entries: int  # lines in the log after the run
    # stages whose best schedule lost to the default in the model tuned as a whole, which
    # therefore keep the default (tune/settle.py; timing in-model only)
    kept_default: list[str] = field(default_factory=list)

    @property
    def default_ms(self) -> float:
        """The sum over launches of the default schedules' times (stages measured both ways)."""
        return sum(s.launches * s.default_ms for s in self.stages if s.default_ms and s.tuned_ms)

    @property
    def tuned_ms(self) -> float:
        """The same sum with each stage's best schedule."""
        return sum(s.launches * s.tuned_ms for s in self.stages if s.default_ms and s.tuned_ms)

    def __str__(self) -> str:
        from tessel.tune.tuner import time_text

        # microseconds where every stage is under a millisecond (an MLP's are)
        times = [t for s in self.stages for t in (s.default_ms, s.tuned_ms) if t is not None]
        scale, unit = (1e3, "us") if times and max(times) < 1.0 else (1.0, "ms")
        rows = [
            f"{'stage':48s} {'launches':>8s} {'default ' + unit:>11s} {'tuned ' + unit:>9s} {'speedup':>8s} {'GFLOP/s':>8s}"
        ]
        for s in self.stages:
            if s.tuned_ms is None:
                rows.append(f"{s.stage[:48]:48s} {s.launches:8d}   not measured (raise trials or budget)")
                continue
            d = s.default_ms if s.default_ms is not None else float("nan")
            x = s.speedup if s.speedup is not None else float("nan")
            rows.append(
                f"{s.stage[:48]:48s} {s.launches:8d} {d * scale:11.3f} {s.tuned_ms * scale:9.3f} {x:7.2f}x {s.gflops:8.1f}"
            )
        if self.tuned_ms:
            rows.append(
                f"sum over launches: {time_text(self.default_ms / 1e3)} with default schedules, "
                f"{time_text(self.tuned_ms / 1e3)} tuned "
                f"({self.default_ms / self.tuned_ms:.2f}x)"
            )
        if self.kept_default:
            rows.append(
                f"{len(self.kept_default)} stages keep their default schedule, faster in the tuned model: "
                + ", ".join(self.kept_default)
            )
        rows.append(f"records: {self.records} ({self.entries} entries)")
        return "\n".join(rows)


def kernel_module(
    model: str | os.PathLike[str] | bytes | onnx.ModelProto,
    *,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    bind: Mapping[str, np.ndarray] | None = None,
    target: str = "cpu",
) -> ModuleOp:
    """The model at kernel level, the form the tuner extracts tasks from: an ONNX model
    (path, bytes or ModelProto), or a .mlir path of tg or kernel IR. Lowered as the
    compiler lowers it for `target` up to where it applies records (pipelines.tensor's
    TASK_FORM): a record only applies to the stage it was measured on, and the GPU's
    stages are not the CPU's (no packed dense weights, other blocked layouts)."""
    from tessel.dialects.context import make_context
    from tessel.frontends.onnx import import_model
    from tessel.ir.source import read_module, verify
    from tessel.ir.weights import WeightStore
    from tessel.pipelines.tensor import TASK_FORM, lower

    weights: Mapping[str, Any]
    if isinstance(model, str | os.PathLike) and not os.fspath(model).endswith(".onnx"):  # tg or kernel IR
        path = os.fspath(model)
        if not os.path.exists(path):
            raise TesselError(f"{path}: no such file")
        module = read_module(make_context(), path)
        weights = WeightStore.for_module(module, path)
    else:
        from tessel.api.tensor import _onnx_model

        proto, source = _onnx_model(model)
        result = import_model(proto, source=source, bind=dict(bind or {}), input_shapes=input_shapes)
        module, weights = result.module, result.weights
    verify(module)
    if any(op.dialect_name() == "tg" for op in module.walk()):
        lower(module, weights, stop_after=TASK_FORM, target=target)
    return module


class _Bar:
    """A tqdm bar over trials (or whole seconds of budget, with the trials and their rate
    in its postfix) and the last round's stage."""

    def __init__(self, trials: int | None, budget_s: float | None, start: int, enabled: bool, file: Any = None):
        from tqdm.auto import tqdm

        self.by_time = trials is None and budget_s is not None
        self.start = start
        if self.by_time:
            assert budget_s is not None
            # seconds as whole numbers (tqdm prints a float total's fractions: 350.0632.../600.0)
            # and no rate (seconds per second)
            self.bar = tqdm(
                total=math.ceil(budget_s),
                unit="s",
                disable=not enabled,
                file=file,
                bar_format="{desc}{percentage:3.0f}%|{bar}| {n}/{total} s [{elapsed}<{remaining}{postfix}]",
            )
        else:
            self.bar = tqdm(total=trials, initial=start, unit="trial", disable=not enabled, file=file)
        self.bar.set_description("tuning")

    def __call__(self, p: Progress) -> None:
        from tessel.tune.tuner import time_text

        target = int(p.elapsed_s) if self.by_time else p.trials
        if self.bar.total is not None:
            target = min(target, self.bar.total)
        self.bar.update(target - self.bar.n)
        failed = f", {p.failed} failed" if p.failed else ""
        done = ""
        if self.by_time:
            rate = (p.trials - self.start) / p.elapsed_s if p.elapsed_s > 0 else 0.0
            done = f"{p.trials} trials, {rate:.2f}/s, "
        self.bar.set_postfix_str(
            f"{done}{p.stage[:32]}: {p.gflops:.1f} GFLOP/s{failed}, stages {time_text(p.stages_s)}"
        )

    def close(self) -> None:
        self.bar.close()


def tune(
    model: str | os.PathLike[str] | bytes | onnx.ModelProto,
    target: str = "cpu",
    *,
    records: str | os.PathLike[str],
    trials: int | None = None,
    budget: float | None = None,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    bind: Mapping[str, np.ndarray] | None = None,
    search: str = "evolve",
    batch: int = 8,
    workers: int = 2,
    threads: int = 2,
    timeout: float = 60.0,
    seed: int = 0,
    ray: str | None = None,
    timing: str | None = None,
    progress: bool = True,
) -> TuningReport:
    """Tune every kernel stage of `model` for `target` ("cpu", or "gpu": measured on this
    machine's NVIDIA GPU), appending each measurement to `records` (JSON lines).

    `trials`: measurements in all, the log's earlier ones of these stages included (default
    64 unless `budget`, seconds of wall time, is given); `search`: evolve (Ansor), anneal
    (TVM) or random; `workers`: processes building candidates; `threads`: threads a
    candidate runs on; `ray`: measure on a Ray cluster (an address, or "local"); `timing`:
    where a CPU candidate is timed, "in-model" (swapped into the compiled model, its launch
    timed in whole runs of it; the default for ONNX models measured here), "cold" (alone,
    caches flushed; the default for .mlir modules and on Ray) or "warm" (alone, nothing
    flushed); `progress`: a tqdm bar on stderr.

    >>> report = tune("dqn.onnx", trials=16, records="dqn.jsonl", progress=False)  # doctest: +SKIP
    >>> report.tuned_ms <= report.default_ms  # doctest: +SKIP
    True
    """
    if target not in ("cpu", "gpu"):
        raise TesselError(f"target {target}: the cpu and gpu targets can be tuned")
    if target == "gpu" and ray:
        raise TesselError("ray measures on CPUs; the gpu target is measured on this machine's GPU")
    if search not in SEARCHES:
        raise TesselError(f"search '{search}': expected one of {', '.join(SEARCHES)}")
    for name, value in (("batch", batch), ("workers", workers), ("threads", threads)):
        if value < 1:
            raise TesselError(f"{name} must be at least 1, got {value}")
    if trials is not None and trials < 1:
        raise TesselError(f"trials must be at least 1, got {trials}")
    if budget is not None and not budget > 0:
        raise TesselError(f"budget must be positive seconds, got {budget:g}")
    if not timeout > 0:
        raise TesselError(f"timeout must be positive seconds, got {timeout:g}")
    onnx_model = not (isinstance(model, str | os.PathLike) and not os.fspath(model).endswith(".onnx"))
    if timing is None:
        timing = "in-model" if onnx_model and target == "cpu" and not ray else "cold"
    if timing not in TIMINGS:
        raise TesselError(f"timing '{timing}': expected one of {', '.join(TIMINGS)}")
    if timing == "in-model" and (not onnx_model or target != "cpu" or ray):
        why = "the gpu target" if target != "cpu" else "Ray" if ray else "a .mlir module"
        raise TesselError(f"timing in-model: needs an ONNX model measured on this CPU, not {why}; use cold")
    path = os.fspath(records)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise TesselError(f"records: no folder {folder} to write {os.path.basename(path)} into")
    if trials is None and budget is None:
        trials = 64
    from tessel.passes.sched.tuning.records import Records  # the compiler loads after the checks
    from tessel.tune.in_model import ModelSource
    from tessel.tune.task import extract_tasks
    from tessel.tune.tuner import Options, Tuner

    log = Records(path)
    host = None
    if target == "gpu":  # needs the GPU now: candidates are measured on it
        from tessel.targets.gpu.runtime import device_description

        host = device_description(hint="tuning for the GPU measures every candidate on one")
    kernels = kernel_module(model, input_shapes=input_shapes, bind=bind, target=target)
    tasks = extract_tasks(kernels, host)
    if not tasks:
        where = os.fspath(model) if isinstance(model, str | os.PathLike) else "the model"
        raise TesselError(f"{where}: no kernel stages to tune")
    with tempfile.TemporaryDirectory(prefix="tessel-tune-") as scratch:
        options = Options(
            trials=trials,
            budget_s=budget,
            strategy=search,
            batch=batch,
            workers=workers,
            threads=threads,
            timeout=timeout,
            seed=seed,
            ray=ray,
            target=target,
            host=host,
            timing=timing,
            model=ModelSource.of(_onnx_file(model, scratch), input_shapes, bind) if timing == "in-model" else None,
        )
        tuner = Tuner(tasks, log, options)
        bar = _Bar(trials, budget, tuner.total_trials(), progress)
        tuner.progress = bar
        try:
            states = tuner.run()
        finally:
            bar.close()
        kept: list[str] = []
        if options.model is not None:  # each best schedule checked in the model tuned as a whole
            from tessel.tune.settle import settle

            kept = settle(options.model, log, kernels, tuner.host, threads)
    return TuningReport([_stage(s) for s in states], path, len(log.entries), kept)


def _onnx_file(model: str | os.PathLike[str] | bytes | onnx.ModelProto, folder: str) -> str:
    """A path to the ONNX model for the measuring process to load: the model's own file,
    or a copy in `folder` of one given as bytes or a ModelProto."""
    if isinstance(model, str | os.PathLike):
        return os.path.abspath(os.fspath(model))
    path = os.path.join(folder, "model.onnx")
    with open(path, "wb") as f:
        f.write(model if isinstance(model, bytes) else model.SerializeToString())
    return path


def _stage(s: TaskState) -> StageResult:
    return StageResult(
        s.task.stage,
        int(s.task.weight),
        s.default_s * 1e3 if s.default_s else None,
        s.best_s * 1e3 if s.best_s else None,
        float(s.gflops),
    )


# `tessel.tune` is the package tessel/tune/ made callable (tune/__init__.py): this is it.
from tessel.tune import register  # noqa: E402  (after the function it registers)

package = register(tune)
