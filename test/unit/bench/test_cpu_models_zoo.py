"""`python -m tessel.bench.cpu_models --zoo`: a model whose output differs from
onnxruntime's is counted wrong (the table and the RESULT line say so, the exit status is
1), not timed as if it were a result. r3d_18 ran 1.67x onnxruntime with logits 43% off in
one zoo run, and only the error column showed it. A one-model zoo (one Relu) made here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper, save

import tessel.bench.cpu_models as cpu_models


def _zoo(folder: Path) -> Path:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
    )
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), folder / "relu.onnx")
    np.savez(folder / "relu.inputs.npz", x=np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32))
    (folder / "index.json").write_text(json.dumps({"relu": {"family": "cnn", "inputs": {"x": [4, 8]}}}))
    return folder


def test_a_right_result_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))  # (the bench sets its own: restored after)
    assert cpu_models.main(["--zoo", str(_zoo(tmp_path)), "--rounds", "1", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "RESULT cpu_models_zoo" in out and " wrong=0 " in out and "WRONG" not in out


def test_a_wrong_result_is_counted_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cpu_models, "WRONG_ABOVE", -1.0)  # every difference, even none, is too much
    assert cpu_models.main(["--zoo", str(_zoo(tmp_path)), "--rounds", "1", "--threads", "1"]) == 1
    out = capsys.readouterr().out
    assert " wrong=1 " in out and "| relu |" in out and "WRONG |" in out
    assert "wrong results (over -1 of the output's scale) from relu" in out
