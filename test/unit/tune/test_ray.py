"""`tessel-tune --ray`: measurement on a (local) Ray instance behaves like the local
measurer: good candidates are timed, a crash or a hang is a failed record, and a tuning
run through Ray fills the records. Optional: needs the `ray` extra
(`pip install -e '.[ray]'`); without it the module is skipped with that reason."""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray", reason="the optional 'ray' extra is not installed")

import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402

from tessel.passes.sched.tuning.records import Records  # noqa: E402
from tessel.tune import space  # noqa: E402
from tessel.tune.measure import Candidate  # noqa: E402
from tessel.tune.ray_measure import RayMeasurer  # noqa: E402
from tessel.tune.tuner import Options, Tuner  # noqa: E402

# the good, crashing and hanging kernels of the local measurer's tests (--import-mode=importlib
# has no package-relative imports)
_spec = importlib.util.spec_from_file_location("tune_kernels", Path(__file__).with_name("test_tuning.py"))
_kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_kernels)
CRASH, HANG, MATMUL, task_of = _kernels.CRASH, _kernels.HANG, _kernels.MATMUL, _kernels.task_of


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_measures_and_isolates_failures(local_ray):
    measurer = RayMeasurer("local", threads=1, repeats=1, timeout=30, quiet_wait=0)
    assert not measurer.owned and len(measurer.nodes) == 1
    good = task_of(MATMUL)
    results = measurer.measure([Candidate(task_of(CRASH), space.DEFAULT), Candidate(good, space.DEFAULT)])
    assert results[0].seconds is None and "worker died" in results[0].error, results[0]
    assert results[1].error is None and results[1].seconds > 0 and "sched.stage" in results[1].schedule
    measurer.timeout = 4
    results = measurer.measure([Candidate(task_of(HANG), space.DEFAULT), Candidate(good, space.DEFAULT)])
    assert results[0].seconds is None and "timed out" in results[0].error, results[0]
    assert results[1].error is None and results[1].seconds > 0


def test_tuning_through_ray_fills_the_records(local_ray, tmp_path):
    records = Records(tmp_path / "r.jsonl")
    Tuner(
        [task_of(MATMUL)], records, Options(trials=12, batch=4, threads=1, repeats=1, ray="local"), log=lambda s: None
    ).run()
    again = Records(tmp_path / "r.jsonl")
    assert len(again.entries) >= 12
    ok = [e for e in again.entries if e["error"] is None]
    assert len(ok) >= 10 and all(e["seconds"] > 0 and e["schedule"] for e in ok)
