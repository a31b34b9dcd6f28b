"""Measuring candidate schedules for real, in worker processes, so that a candidate that
miscompiles, crashes or hangs is a failed record and never takes the tuner down.

Two phases per batch, as TVM's builder/runner split: `workers` processes build the
candidates in parallel (LLVM at O3 is the slow part; objects land in the on-disk object
cache), then one runner process at a time checks each candidate against the stage under
its default schedule on the same random inputs and times it (timing two candidates at
once on a 2-core machine would measure the contention). A runner that dies or runs past
`timeout` seconds fails the candidate it was on; the pool is rebuilt and the batch goes
on. `--ray ADDRESS` sends the same two jobs to a Ray cluster instead (`ray_measure.py`).

Where a candidate is timed (`timing`; tessel.tune() picks): "in-model" swaps it into the compiled model and
times its launch in whole runs of the model (in_model.py); "cold" times the stage alone
with its buffers flushed before every run, and "warm" alone with nothing flushed. A stage
the model does not launch alone (its rows fused with its neighbours') is timed cold, and
its record says so (`meta["timing"]`).
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tessel.tune import space
from tessel.tune.in_model import ModelSource, bench_for
from tessel.tune.quiet import wait_for_quiet
from tessel.tune.task import StageRunner, Task


@dataclass
class Candidate:
    task: Task
    knobs: space.Knobs


@dataclass
class Result:
    key: str
    knobs: space.Knobs
    seconds: float | None  # median per run; None when failed
    best: float | None = None  # fastest sample
    error: str | None = None
    schedule: str = ""  # the sched.stage text
    build_s: float = 0.0
    meta: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- worker side

# per task: the seeded buffers (before any run) and the default schedule's output; for the
# last few tasks only (a round measures one task's batch; a large model's buffers add up)
_REFERENCE: dict[str, tuple[list[np.ndarray], np.ndarray]] = {}
REFERENCE_TASKS = 4
# A candidate's timing: `repeats` samples of about this long, each of runs on flushed
# caches (StageRunner.timings). 10 ms samples: with 20 ms, timing was half of a ResNet-18
# candidate's measurement (5 x 20 ms) and the tuner ran at 2.7 trials/s on 2 cores.
SAMPLE_SECONDS = 0.01
# how long the idle check before a batch looks at the CPUs (0.5 s was an eighth of a batch)
QUIET_SAMPLE = 0.1


def _schedule_text(task: Task, knobs: space.Knobs, sp=space) -> str:  # noqa: ANN001 - sp: the space module
    from xdsl.dialects.builtin import ModuleOp

    from tessel.ir.source import print_module

    op, _ = task.compute_op()
    return print_module(ModuleOp([sp.build(op, knobs, task.stage)]))


def build_job(task: Task, knobs: space.Knobs, threads: int) -> tuple[float, str]:
    """Compile the candidate (filling the object cache); seconds taken and its schedule text."""
    start = time.perf_counter()
    op, _ = task.compute_op()
    StageRunner(task, space.build(op, knobs, task.stage), threads=threads, cache=True)
    return time.perf_counter() - start, _schedule_text(task, knobs)


def run_job(
    task: Task, knobs: space.Knobs, threads: int, repeats: int, timing: str = "cold", model: ModelSource | None = None
) -> tuple[float, float, str]:
    """Check the candidate against the default schedule, then time it where `timing` says
    (in-model needs the `model`): (median, best, where it was timed)."""
    op, _ = task.compute_op()
    if task.key not in _REFERENCE:
        reference = StageRunner(task, None, threads=threads, cache=True)
        inputs = [np.array(b, copy=True) for b in reference.buffers]  # before the run writes its output
        _REFERENCE[task.key] = (inputs, reference.run().copy())
        while len(_REFERENCE) > REFERENCE_TASKS:
            del _REFERENCE[next(iter(_REFERENCE))]  # the oldest (dicts keep insertion order)
    inputs, want = _REFERENCE[task.key]
    schedule = space.build(op, knobs)
    runner = StageRunner(task, schedule, threads=threads, buffers=inputs, cache=True)
    check_result(runner.run(), want)
    if timing == "in-model" and model is not None:
        runner.plan.stop()  # its pool, before the model's runs on the model's own
        timed = bench_for(model, threads).timings(task, schedule, repeats, built=runner)
        if timed is not None:
            return (*timed, "in-model")
        timing = "cold"  # (the runner's pool starts again on its next run)
    return (*runner.timings(repeats, SAMPLE_SECONDS, cold=timing != "warm"), timing)


def check_result(got: np.ndarray, want: np.ndarray) -> None:
    """A candidate's output against the default schedule's: float within 1e-4 of the
    output's scale, integers exactly; an AssertionError (a failed record) otherwise."""
    if want.dtype.kind == "f":
        scale = max(1.0, float(np.abs(want).max()))
        if not np.allclose(got, want, rtol=1e-4, atol=1e-4 * scale, equal_nan=True):
            raise AssertionError(f"wrong result: max error {float(np.abs(got - want).max()):.3g} (scale {scale:.3g})")
    elif not np.array_equal(got, want):
        raise AssertionError("wrong result")


def _die_with_parent(parent: int) -> None:
    """Worker initializer: a tuner killed by SIGKILL cannot stop its workers, so each asks
    the kernel (Linux prctl PR_SET_PDEATHSIG) to be killed when its parent dies; without it
    they lived on as orphans, holding the tuner's stdout and stderr open."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the orphans exit when their queue closes
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _pool(workers: int) -> cf.ProcessPoolExecutor:
    return cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_die_with_parent,
        initargs=(os.getpid(),),
    )


def _kill(pool: cf.ProcessPoolExecutor) -> None:
    for p in list(getattr(pool, "_processes", {}).values()):
        p.kill()
    pool.shutdown(wait=False, cancel_futures=True)


class LocalMeasurer:
    def __init__(
        self,
        workers: int = 1,
        threads: int = 2,
        repeats: int = 5,
        timeout: float = 60.0,
        quiet_wait: float = 10.0,
        timing: str = "cold",
        model: ModelSource | None = None,
    ):
        self.timing, self.model = timing, model
        self.quiet_wait = quiet_wait
        self.workers = max(1, workers)
        self.threads = threads
        self.repeats = repeats
        self.timeout = timeout
        self.builders = _pool(self.workers)
        self.runner = _pool(1)

    def measure(self, candidates: Sequence[Candidate]) -> list[Result]:
        results = [Result(c.task.key, c.knobs, None) for c in candidates]
        built = self._build(candidates, results)
        # timing on a machine other jobs are using measures them: wait (a bounded time)
        # for the CPUs to go idle first, and record what was seen
        idle = wait_for_quiet(limit=self.quiet_wait, sample=QUIET_SAMPLE) if self.quiet_wait > 0 else float("nan")
        for i, c in enumerate(candidates):
            results[i].meta["idle"] = round(idle, 2)
            if results[i].error is not None:
                continue
            results[i].build_s, results[i].schedule = built[i]
            outcome = self._one(
                lambda c=c: self.runner.submit(
                    run_job, c.task, c.knobs, self.threads, self.repeats, self.timing, self.model
                ),
                "run",
            )
            if isinstance(outcome, str):
                results[i].error = outcome
                if outcome.startswith(("timed out", "worker died")):
                    self.runner = _pool(1)
            else:
                results[i].seconds, results[i].best, results[i].meta["timing"] = outcome
        return results

    def _build(self, candidates: Sequence[Candidate], results: list[Result]) -> list:
        """Build every candidate on the builder pool; a failure is recorded on its result."""

        def submit(c: Candidate) -> cf.Future:
            return self.builders.submit(build_job, c.task, c.knobs, self.threads)

        futures = [submit(c) for c in candidates]
        out: list = [None] * len(candidates)
        for i, f in enumerate(futures):
            try:
                out[i] = f.result(timeout=self.timeout)
                continue
            except cf.TimeoutError:
                results[i].error = f"build: timed out after {self.timeout:.0f} s"
                _kill(self.builders)
            except cf.process.BrokenProcessPool:
                results[i].error = "build: worker died"
            except Exception as err:  # the candidate's own failure, raised in the worker
                results[i].error = f"build: {type(err).__name__}: {err}"
                continue
            self.builders = _pool(self.workers)  # resubmit the rest to a fresh pool
            for j in range(i + 1, len(candidates)):
                futures[j] = submit(candidates[j])
        return out

    def _one(self, submit, what):
        future = submit()
        try:
            return future.result(timeout=self.timeout)
        except cf.TimeoutError:
            _kill(self.runner)
            return f"timed out after {self.timeout:.0f} s ({what})"
        except cf.process.BrokenProcessPool:
            return f"worker died ({what}: crash)"
        except Exception as err:
            return f"{what}: {type(err).__name__}: {err}"

    def close(self) -> None:
        """Kill the workers: after a finished run they are idle, and after SIGINT/SIGTERM a
        build still running must not keep the process alive (interpreter exit joins the
        pools' threads, which wait for running jobs)."""
        _kill(self.builders)
        _kill(self.runner)
