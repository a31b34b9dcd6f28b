"""tessel.tune: a small model tuned for 1 trial writes 1 record, a rerun resumes (measures
nothing again), the report adds up, the progress bar is tqdm's, and bad arguments are one
line each (before any work)."""

from __future__ import annotations

import io
import json

import pytest

import tessel
from tessel.runtime.errors import TesselError


def test_tune_writes_and_resumes(small, tmp_path) -> None:
    records = tmp_path / "small.jsonl"
    report = tessel.tune(small, trials=1, batch=1, workers=1, threads=1, records=records, progress=False)
    lines = records.read_text().splitlines()
    assert report.entries == len(lines) == 1
    assert {json.loads(line)["stage"] for line in lines} <= {s.stage for s in report.stages}
    measured = [s for s in report.stages if s.tuned_ms is not None]
    assert measured and all(s.tuned_ms > 0 and s.launches >= 1 for s in measured)
    assert "records:" in str(report)
    again = tessel.tune(small, trials=1, workers=1, threads=1, records=records, progress=False)
    assert again.entries == 1 and records.read_text().splitlines() == lines
    assert json.loads(lines[0])["timing"] in ("in-model", "cold")  # cold: a stage fused in the model


def test_a_module_is_timed_cold_and_cannot_be_timed_in_a_model(tmp_path) -> None:
    """A .mlir module has no model file for a measuring process to compile: its candidates
    are timed alone, and asking for in-model timing is an error naming why."""
    path = tmp_path / "m.mlir"
    path.write_text(
        "func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {\n"
        "  %y = tg.relu %x : tensor<64xf32>\n  func.return %y : tensor<64xf32>\n}\n"
    )
    with pytest.raises(TesselError, match="timing in-model: needs an ONNX model measured on this CPU, not a .mlir"):
        tessel.tune(path, records=tmp_path / "r.jsonl", timing="in-model", progress=False)
    records = tmp_path / "r.jsonl"
    tessel.tune(path, records=records, trials=1, workers=1, threads=1, progress=False)
    assert json.loads(records.read_text().splitlines()[0])["timing"] == "cold"


def test_progress_bar_is_tqdm() -> None:
    from tessel.api.tuning import _Bar
    from tessel.tune.tuner import Progress

    out = io.StringIO()
    bar = _Bar(10, None, 2, enabled=True, file=out)
    bar(Progress(6, 1.0, "k1_conv__s0", 123.4, 4, 1, 0.002))
    assert bar.bar.n == 6 and bar.bar.total == 10
    bar.bar.refresh()
    assert "6/10" in out.getvalue() and "123.4 GFLOP/s, 1 failed" in out.getvalue()
    assert "stages 2 ms" in out.getvalue()
    bar.close()


def test_a_budget_bar_counts_whole_seconds_and_shows_the_trials() -> None:
    """A --budget bar's position is seconds: tqdm printed a float's every digit
    ('350.06328473200847/600.0') and a rate of 1.00 s/s; the trials and their rate are what
    a user reads."""
    from tessel.api.tuning import _Bar
    from tessel.tune.tuner import Progress

    out = io.StringIO()
    bar = _Bar(None, 600.0, 4, enabled=True, file=out)
    bar(Progress(704, 350.0632847, "k13_conv2d_nchwc_relu__s1", 219.5, 8, 0, 0.00897))
    bar.bar.refresh()
    text = out.getvalue()
    assert bar.bar.n == 350 and bar.bar.total == 600
    assert "350/600 s" in text and "350.06" not in text and "s/s" not in text
    assert "704 trials, 2.00/s, k13_conv2d_nchwc_relu__s1: 219.5 GFLOP/s, stages 8.97 ms" in text
    bar.close()


def test_the_report_keeps_small_times_readable() -> None:
    """An MLP's stages take microseconds: the report shows them, not '0.000 ms'."""
    from tessel.api.tuning import StageResult, TuningReport
    from tessel.tune.tuner import time_text

    assert [time_text(s) for s in (2.5, 0.0123, 0.00039, 4.2e-7)] == ["2.5 s", "12.3 ms", "390 us", "0.42 us"]
    small = TuningReport([StageResult("k0_dense__s0", 1, 0.00039, 0.00033, 49.6)], "log.jsonl", 3)
    text = str(small)
    assert "default us" in text and "0.390     0.330" in text
    assert "sum over launches: 0.39 us with default schedules, 0.33 us tuned (1.18x)" in text
    large = str(TuningReport([StageResult("k0_conv__s0", 2, 1.5, 1.2, 90.0)], "log.jsonl", 3))
    assert "default ms" in large and "sum over launches: 3 ms with default schedules, 2.4 ms tuned (1.25x)" in large


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"target": "vta"}, "the cpu and gpu targets can be tuned"),
        ({"trials": 0}, "trials must be at least 1"),
        ({"search": "grid"}, "search 'grid'"),
        ({"budget": -1.0}, "budget must be positive"),
        ({"timing": "hot"}, "timing 'hot': expected one of in-model, cold, warm"),
        ({"timing": "in-model", "ray": "local"}, "timing in-model: needs an ONNX model measured on this CPU, not Ray"),
    ],
)
def test_bad_arguments(small, tmp_path, kwargs, message: str) -> None:
    with pytest.raises(TesselError, match=message) as err:
        tessel.tune(small, records=tmp_path / "r.jsonl", **kwargs)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "r.jsonl").exists()


def test_tessel_tune_is_callable_however_it_was_imported() -> None:
    """Importing a module of the tune package binds `tessel.tune` to the package (Python's
    import system does that); the package is callable, so `tessel.tune(...)` still works,
    before and after the API module was imported."""
    code = """
import sys
import tessel.tune.quiet
import tessel
from tessel.runtime.errors import TesselError
assert tessel.tune is sys.modules["tessel.tune"] and "tessel.api.tuning" not in sys.modules
try:
    tessel.tune("m.onnx", "vta", records="r.jsonl")
except TesselError as err:
    assert "the cpu and gpu targets can be tuned" in str(err), err
else:
    raise AssertionError("no error")
assert "tessel.api.tuning" in sys.modules and tessel.tune.quiet is sys.modules["tessel.tune.quiet"]
"""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
