"""Tuning a model: tasks, a shared measurement budget, the cost model, the records.

Each round the task scheduler picks the task with the largest expected gain: its weight
(launches) times its current best time times the relative improvement of its last rounds
(Ansor's gradient scheduler, simplified), with every task measured once first (its default
schedule and a first batch). For the chosen task the search proposes a batch, the batch is
measured, appended to the records, and the cost model is refit on every record it has,
earlier runs' included (their features are stored), which is the transfer: a model made on
earlier tasks ranks a new task's candidates from its first batch.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from tessel.passes.sched.tuning.records import Records, knob_id
from tessel.targets.cpu import cpu_target
from tessel.tune import gpu_space, search, space
from tessel.tune.cost_model import CostModel
from tessel.tune.features import SIZE, features
from tessel.tune.in_model import ModelSource
from tessel.tune.measure import Candidate, LocalMeasurer, Result
from tessel.tune.ray_measure import RayMeasurer
from tessel.tune.task import Task

if TYPE_CHECKING:
    from tessel.tune.gpu_measure import GpuMeasurer


@dataclass
class Options:
    trials: int | None = 64  # measurements in all, earlier runs' records of these tasks included
    budget_s: float | None = None
    strategy: str = "evolve"
    batch: int = 8
    workers: int = 2
    threads: int = 2
    repeats: int = 5
    timeout: float = 60.0
    seed: int = 0
    ray: str | None = None  # a Ray cluster address: measure there (tune/ray_measure.py)
    target: str = "cpu"  # "gpu": the GPU search space, measured on the GPU (tune/gpu_measure.py)
    host: str | None = None  # what the records call the machine (a GPU's description for gpu)
    timing: str = "cold"  # where candidates are timed: in-model, cold or warm (tune/measure.py)
    model: ModelSource | None = None  # the model's file, for timing in it


# A refit costs 0.19 s on 300 records and 0.41 s on 2500 (a round of 8 candidates is ~1.6
# s): every round, it took a tenth of a 10-minute run. With 5% growth between fits the
# model still refits every round up to 160 records, every 16 rounds at 2500.
REFIT_GROWTH = 1.05


@dataclass(frozen=True)
class Progress:
    """Where a tuning run stands after one round (for a progress bar)."""

    trials: int  # measured so far, this run's and earlier records' of these tasks
    elapsed_s: float
    stage: str  # the stage this round measured
    gflops: float  # its best so far
    measured: int  # candidates this round
    failed: int
    stages_s: float  # the sum over launches of every measured stage's best time


@dataclass
class TaskState:
    task: Task
    default_s: float | None = None
    best_s: float | None = None
    best_knobs: space.Knobs | None = None
    trials: int = 0
    history: list[float] = field(default_factory=list)  # best after each of its rounds

    @property
    def gflops(self) -> float:
        return self.task.flops / self.best_s / 1e9 if self.best_s else 0.0


class Tuner:
    def __init__(
        self,
        tasks: Sequence[Task],
        records: Records,
        options: Options,
        log: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True),
        progress: Callable[[Progress], None] | None = None,
    ):
        self.progress = progress  # called after every round instead of logging its line
        self.states = [TaskState(t) for t in tasks]
        self.records = records
        self.options = options
        self.log = log
        self.rng = random.Random(options.seed)
        self.model = CostModel(options.seed)
        self.fitted_on = 0  # records the model was last fitted on
        self.host = options.host or cpu_target.current().description
        self.space = gpu_space if options.target == "gpu" else space  # the search space module
        for state in self.states:
            for e in records.for_key(state.task.key):
                self._account(state, e.get("knobs", {}), e.get("seconds"), e.get("best"), replay=True)
        self._fit()

    # ------------------------------------------------------------------ bookkeeping

    def _account(
        self, state: TaskState, knobs: space.Knobs, seconds: float | None, best: float | None, replay: bool = False
    ) -> None:
        state.trials += 1
        t = best or seconds
        if knobs.get("default") and seconds:
            state.default_s = t
        if t and (state.best_s is None or t < state.best_s):
            state.best_s, state.best_knobs = t, knobs

    def _fit(self) -> None:
        """Refit the cost model on every record, once they have grown by REFIT_GROWTH since
        the last fit (every round while they are few)."""
        rows = [e for e in self.records.entries if e.get("features") and len(e["features"]) == SIZE]
        if len(rows) >= 8 and len(rows) >= max(self.fitted_on + 8, self.fitted_on * REFIT_GROWTH):
            self.fitted_on = len(rows)
            self.model.fit(
                np.array([e["features"] for e in rows]),
                [e["key"] for e in rows],
                [e.get("best") or e.get("seconds") for e in rows],
            )

    def total_trials(self) -> int:
        return sum(s.trials for s in self.states)

    # ------------------------------------------------------------------ the loop

    def run(self) -> list[TaskState]:
        o = self.options
        start = time.monotonic()
        measurer: LocalMeasurer | RayMeasurer | GpuMeasurer
        if o.target == "gpu":
            from tessel.tune.gpu_measure import GpuMeasurer

            measurer = GpuMeasurer(repeats=o.repeats, timeout=o.timeout)
        elif o.ray:
            measurer = RayMeasurer(o.ray, threads=o.threads, repeats=o.repeats, timeout=o.timeout)
        else:
            measurer = LocalMeasurer(
                workers=o.workers,
                threads=o.threads,
                repeats=o.repeats,
                timeout=o.timeout,
                timing=o.timing,
                model=o.model,
            )
        try:
            while True:
                if o.trials is not None and self.total_trials() >= o.trials:
                    break
                if o.budget_s is not None and time.monotonic() - start >= o.budget_s:
                    break
                state = self._pick()
                if state is None:
                    self.log("every task's space is measured out")
                    break
                self._round(state, measurer, start)
        finally:
            measurer.close()
        return self.states

    def _pick(self) -> TaskState | None:
        fresh = [s for s in self.states if s.trials == 0]
        if fresh:  # every task once, the biggest first
            return max(fresh, key=lambda s: s.task.weight * s.task.flops)

        def gain(s: TaskState) -> float:
            if s.best_s is None:
                return math.inf
            h = s.history[-3:]
            slope = (h[0] - h[-1]) / h[0] if len(h) >= 2 and h[0] else 0.2
            return s.task.weight * s.best_s * max(slope, 0.02) / math.sqrt(1 + s.trials)

        return max(self.states, key=gain, default=None)

    def _round(self, state: TaskState, measurer, start: float) -> None:  # noqa: ANN001 - any measurer
        o = self.options
        op, _ = state.task.compute_op()
        measured = self.records.measured(state.task.key)
        size = o.batch
        if o.trials is not None:
            size = max(1, min(size, o.trials - self.total_trials()))
        points: list[space.Knobs] = []
        if knob_id(self.space.DEFAULT) not in measured:
            points.append(self.space.DEFAULT)
        best = sorted(
            (e for e in self.records.for_key(state.task.key) if e.get("seconds")),
            key=lambda e: e.get("best") or e["seconds"],
        )
        points += search.propose(
            o.strategy,
            op,
            self.model,
            measured | {knob_id(self.space.DEFAULT)},
            [e["knobs"] for e in best if not e["knobs"].get("default")][:8],
            size - len(points),
            self.rng,
            sp=self.space,
        )
        if not points:
            state.trials += 1  # nothing left to try: let the scheduler move on
            return
        results = measurer.measure([Candidate(state.task, p) for p in points])
        self.records.append(self._entry(state.task, op, r) for r in results)
        for r in results:
            self._account(state, r.knobs, r.seconds, r.best)
        if state.best_s:
            state.history.append(state.best_s)
        self._fit()
        failed = sum(r.error is not None for r in results)
        elapsed = time.monotonic() - start
        done = self.total_trials()
        if self.progress is not None:
            total = sum(s.task.weight * s.best_s for s in self.states if s.best_s)
            self.progress(Progress(done, elapsed, state.task.stage, state.gflops, len(results), failed, total))
            return
        eta = ""
        if o.trials:
            eta = f", ETA {_duration(elapsed / max(done, 1) * max(o.trials - done, 0))}"
        elif o.budget_s:
            eta = f", {_duration(max(o.budget_s - elapsed, 0))} left"
        speedup = f" ({state.default_s / state.best_s:.2f}x default)" if state.default_s and state.best_s else ""
        fraction = done / o.trials if o.trials else min(1.0, elapsed / o.budget_s) if o.budget_s else 0.0
        bar = "#" * int(20 * fraction) + "-" * (20 - int(20 * fraction))
        total = sum(s.task.weight * s.best_s for s in self.states if s.best_s)
        self.log(
            f"[{bar}] {done}{'/' + str(o.trials) if o.trials else ''} trials | {state.task.stage}: best {state.gflops:.1f} GFLOP/s"
            f"{speedup}, {len(results)} measured{f', {failed} failed' if failed else ''} | stages so far {time_text(total)}{eta}"
        )

    def _entry(self, task: Task, op, r: Result) -> dict:
        try:
            vec = features(op, self.space.loops(op, r.knobs)).tolist()
        except Exception:  # noqa: BLE001  (a schedule that cannot be built has no features)
            vec = None
        return {
            "key": task.key,
            "stage": task.stage,
            "target": self.options.target,
            "host": self.host,
            "knobs": r.knobs,
            "schedule": r.schedule,
            "seconds": r.seconds,
            "best": r.best,
            "error": r.error,
            "flops": task.flops,
            "features": vec,
            "idle": r.meta.get("idle"),
            "timing": r.meta.get("timing"),
        }


def time_text(seconds: float) -> str:
    """A run time in the unit that keeps three significant digits (a small model's stages
    sum to microseconds, which '0.000 ms' hid)."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e6:.3g} us"


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
