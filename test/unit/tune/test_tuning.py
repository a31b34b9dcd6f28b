"""The tuner's machinery: records survive interruption, bad candidates become failed
records instead of killing the run, the cost model ranks, and a rerun resumes without
measuring anything twice."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from tessel.dialects.context import make_context
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import parse_module
from tessel.passes.sched.tuning.records import Records, knob_id
from tessel.tune import cost_model, space
from tessel.tune.measure import Candidate, LocalMeasurer, Result
from tessel.tune.task import extract_tasks
from tessel.tune.tuner import Options, Tuner

MATMUL = (Path(__file__).resolve().parents[1] / "Inputs" / "matmul_kernel.mlir").read_text()

# Reads 10^8 elements past its input: a segfault, not a wrong number.
CRASH = """
func.func @k0_bad(%a: memref<16xf32>, %c: memref<16xf32>) attributes {kernel.kernel} {
  kernel.compute "bad" %c(i = 16) : memref<16xf32> {
  ^bb0(%i: index):
    %x = affine.load %a[%i + 100000000] : memref<16xf32>
    kernel.yield %x : f32
  }
  func.return
}
"""

# 2^34 multiply-adds: far beyond any timeout the test sets.
HANG = """
func.func @k0_slow(%a: memref<4xf32>, %c: memref<4xf32>) attributes {kernel.kernel} {
  kernel.compute "slow" %c(i = 4) reduce(r = 65536, s = 65536, t = 4) combine "add" init 0.000000e+00 : f32 : memref<4xf32> {
  ^bb0(%i: index, %r: index, %s: index, %t: index):
    %x = affine.load %a[%t] : memref<4xf32>
    kernel.yield %x : f32
  }
  func.return
}
"""


def task_of(text: str):
    (task,) = extract_tasks(parse_module(make_context(), text))
    return task


def test_records_append_resume_and_best(tmp_path):
    path = tmp_path / "r.jsonl"
    r = Records(path)
    r.append(
        [
            {"key": "a", "knobs": {"x": 1}, "seconds": 2.0, "best": 2.0, "error": None, "schedule": "s1"},
            {"key": "a", "knobs": {"x": 2}, "seconds": 1.0, "best": 0.9, "error": None, "schedule": "s2"},
            {"key": "a", "knobs": {"x": 3}, "seconds": None, "best": None, "error": "build: boom", "schedule": ""},
        ]
    )
    with open(path, "a") as f:
        f.write('{"key": "a", "knobs": {"x"')  # a write cut off by a kill
    again = Records(path)
    assert len(again.entries) == 3
    assert again.best("a")["schedule"] == "s2"
    assert again.measured("a") == {knob_id({"x": 1}), knob_id({"x": 2}), knob_id({"x": 3})}
    path.write_text('{"key": "a", "knobs": {}}\nnot json\n{"key": "b", "knobs": {}}\n')
    with pytest.raises(TesselError, match=r"r.jsonl:2: not a JSON record"):
        Records(path)


def test_crashing_and_hanging_candidates_fail_without_killing_the_tuner():
    measurer = LocalMeasurer(workers=1, threads=1, repeats=1, timeout=20, quiet_wait=0)
    try:
        good = task_of(MATMUL)
        results = measurer.measure([Candidate(task_of(CRASH), space.DEFAULT), Candidate(good, space.DEFAULT)])
        assert results[0].seconds is None and "worker died" in results[0].error
        assert results[1].error is None and results[1].seconds > 0
        measurer.timeout = 10  # the hang runs minutes; a loaded machine needs seconds for the good one
        results = measurer.measure([Candidate(task_of(HANG), space.DEFAULT), Candidate(good, space.DEFAULT)])
        assert results[0].seconds is None and "timed out" in results[0].error
        assert results[1].error is None and results[1].seconds > 0
    finally:
        measurer.close()


def test_pairwise_accuracy_and_recall():
    assert cost_model.pairwise_accuracy([3, 2, 1], [1.0, 2.0, 3.0]) == 1.0
    assert cost_model.pairwise_accuracy([1, 2, 3], [1.0, 2.0, 3.0]) == 0.0
    assert cost_model.top_k_recall([5, 1, 4, 0], [1.0, 9.0, 2.0, 8.0], 2) == 1.0


def test_model_learns_a_ranking_that_transfers_to_held_out_tasks():
    """Synthetic times that depend on the features: the model must rank unseen tasks'
    candidates far better than chance."""
    from tessel.tune.features import SIZE

    rng = np.random.default_rng(0)
    w = rng.standard_normal(SIZE)
    X = rng.uniform(0, 4, size=(600, SIZE))
    seconds = np.exp(0.3 * X @ w / np.sqrt(SIZE)) * 1e-3
    groups = [f"t{i // 50}" for i in range(600)]
    model = cost_model.CostModel()
    train = [i for i, g in enumerate(groups) if int(g[1:]) < 9]
    test = [i for i, g in enumerate(groups) if int(g[1:]) >= 9]
    model.fit(X[train], [groups[i] for i in train], list(seconds[train]))
    scores = cost_model.evaluate(model, X[test], [groups[i] for i in test], list(seconds[test]))
    assert scores["tasks"] == 3
    assert scores["pairwise_accuracy"] > 0.75, scores


class FakeMeasurer:
    """Deterministic times from the knobs; raises KeyboardInterrupt after `stop_after` batches."""

    def __init__(self, stop_after: int | None = None, **_):
        self.batches = 0
        self.stop_after = stop_after
        self.seen: list[str] = []

    def measure(self, candidates):
        if self.stop_after is not None and self.batches >= self.stop_after:
            raise KeyboardInterrupt
        self.batches += 1
        out = []
        for c in candidates:
            self.seen.append(knob_id(c.knobs))
            t = 1e-3 * (1 + (hash(knob_id(c.knobs)) % 97) / 97)
            out.append(Result(c.task.key, c.knobs, t, t, None, "sched.stage"))
        return out

    def close(self):
        pass


def test_interrupted_tuning_resumes_without_remeasuring(tmp_path, monkeypatch):
    from tessel.tune import tuner as tuner_module

    path = tmp_path / "tune.jsonl"
    tasks = extract_tasks(parse_module(make_context(), MATMUL))
    first = FakeMeasurer(stop_after=2)
    monkeypatch.setattr(tuner_module, "LocalMeasurer", lambda **kw: first)
    with pytest.raises(KeyboardInterrupt):
        Tuner(tasks, Records(path), Options(trials=40, batch=8, strategy="random")).run()
    recorded = [json.loads(l) for l in path.read_text().splitlines()]
    assert len(recorded) == 16
    second = FakeMeasurer()
    monkeypatch.setattr(tuner_module, "LocalMeasurer", lambda **kw: second)
    Tuner(tasks, Records(path), Options(trials=40, batch=8, strategy="random")).run()
    assert not set(second.seen) & set(first.seen), "a measurement was repeated"
    assert len(path.read_text().splitlines()) == 40
    assert len(second.seen) == 24


def test_model_guided_search_proposes_valid_unmeasured_points():
    task = task_of(MATMUL)
    op, _ = task.compute_op()
    rng = random.Random(1)
    model = cost_model.CostModel()
    points = [space.sample(op, rng) for _ in range(40)]
    from tessel.tune import search
    from tessel.tune.features import features

    X = np.stack([features(op, space.loops(op, p)) for p in points])
    seconds = list(1e-3 * (1 + np.arange(40) / 40))
    model.fit(X, [task.key] * 40, seconds)
    measured = {knob_id(p) for p in points}
    for strategy in ("anneal", "evolve"):
        batch = search.propose(strategy, op, model, measured, points[:4], 8, rng)
        assert len(batch) == 8 and not {knob_id(p) for p in batch} & measured
        for p in batch:
            space.loops(op, p).validate(op)


def test_cold_timing_flushes_the_buffers_and_keeps_the_result(monkeypatch):
    """Stages are timed as a model finds their buffers: flushed from the caches before each
    run (targets/cpu/cache_flush.py), every buffer before every timed run; the flush keeps
    the data (clflush writes dirty lines back)."""
    from tessel.targets.cpu.cache_flush import flush_function
    from tessel.tune import task as task_module

    flush = flush_function()
    data = np.arange(1 << 16, dtype=np.float32)
    if flush is not None:
        flush(data.ctypes.data, data.nbytes)
    np.testing.assert_array_equal(data, np.arange(1 << 16, dtype=np.float32))
    flushed: list[int] = []

    def counting(address: int, size: int) -> None:
        flushed.append(address)
        if flush is not None:
            flush(address, size)

    monkeypatch.setattr(task_module, "flush_function", lambda: counting)
    runner = task_module.StageRunner(task_of(MATMUL), threads=1)
    expected = runner.run().copy()
    runner.timings(repeats=2, min_seconds=0.001, cold=True)
    addresses = {b.ctypes.data for b in runner.buffers}
    assert set(flushed) == addresses and len(flushed) >= 2 * 3 * len(addresses)  # >= 3 runs a sample
    flushed.clear()
    runner.timings(repeats=2, min_seconds=0.001, cold=False)
    assert not flushed
    np.testing.assert_array_equal(runner.run(), expected)
