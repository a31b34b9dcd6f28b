"""tessel-tune --target gpu end to end against the stand-in driver (fake_cuda.py): tasks
keyed by the GPU, candidates from the GPU space built, checked against the CPU default and
timed with CUDA events, records written with target gpu, and tessel-run --target gpu
--records compiling with them. (The fake's events all read 0.25 ms, so which candidate
wins says nothing here; on a GPU it is the measured fastest.)"""

from __future__ import annotations

import json

import numpy as np
from fake_cuda import FakeDriver

MATMUL = """func.func @main(%a: tensor<24x40xf32>, %b: tensor<40x33xf32>) -> tensor<24x33xf32> {
  %c = tg.matmul %a, %b : (tensor<24x40xf32>, tensor<40x33xf32>) -> tensor<24x33xf32>
  %r = tg.relu %c : tensor<24x33xf32>
  func.return %r : tensor<24x33xf32>
}
"""


def test_tune_then_run_with_the_records(fake: FakeDriver, tmp_path, monkeypatch, capsys) -> None:
    from tessel.tools.run import main as run_main
    from tessel.tools.tune import main as tune_main

    model = tmp_path / "m.mlir"
    model.write_text(MATMUL)
    records = tmp_path / "gpu.jsonl"
    assert tune_main([str(model), "--target", "gpu", "--trials", "10", "--batch", "5", "--records", str(records)]) == 0
    entries = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(entries) == 10 and all(e["target"] == "gpu" and e["host"] == "Fake GPU sm_90" for e in entries)
    assert sum(1 for e in entries if e["error"] is None and e["seconds"]) >= 8, [e["error"] for e in entries]
    assert any("sched.bind" in e["schedule"] for e in entries if e["schedule"])
    out = tmp_path / "out.npz"
    capsys.readouterr()
    assert run_main([str(model), "--target", "gpu", "--records", str(records), "--check", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert (
        "1 stages tuned from records, 0 on default schedules" in text
        and "check against the reference semantics: OK" in text
    ), text
    assert np.load(out)[next(iter(np.load(out).keys()))].shape == (24, 33)
