"""The zoo's small variants, exported from code by PyTorch's exporter as users do (opset
17, dynamic batch and sequence axes), import and match onnxruntime on the reference and
CPU targets: max |a - e| / max |e| <= 1e-4 (examples/zoo/check.py). `make zoo` checks the
full-size models, the vision ones included (torchvision lives in the zoo's own venv).

The exports are cached in .cache/zoo-small, keyed by the torch and transformers versions
and the zoo's source, so a second run only checks.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import transformers

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "examples" / "zoo"
sys.path.insert(0, str(ZOO))

import check  # noqa: E402

# torch, transformers and plain-PyTorch models: what the test venv can build
MODELS = ["bert", "distilbert", "gpt2", "t5_encoder", "whisper_encoder", "lstm_tagger", "gru_classifier", "m5_audio"]


def _exported() -> Path:
    source = b"".join((ZOO / f).read_bytes() for f in ("models.py", "export.py"))
    key = hashlib.sha256(source + f"{torch.__version__}|{transformers.__version__}".encode()).hexdigest()[:12]
    folder = ROOT / ".cache" / "zoo-small" / key
    index = folder / "index.json"
    if not index.exists() or set(json.loads(index.read_text())) < set(MODELS):
        folder.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, str(ZOO / "export.py"), "--out", str(folder), "--small", *MODELS]
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, done.stderr[-3000:]
    return folder


@pytest.fixture(scope="module")
def zoo() -> tuple[Path, dict]:
    folder = _exported()
    return folder, json.loads((folder / "index.json").read_text())


@pytest.mark.parametrize("name", MODELS)
def test_zoo_model_matches_onnxruntime(zoo: tuple[Path, dict], name: str) -> None:
    folder, index = zoo
    row = check.check(folder / f"{name}.onnx", index[name], ["reference", "cpu"], runs=0, threads=2)
    assert row.passed, f"{name}: import {row.imported}, reference {row.reference}, cpu {row.cpu}: {row.errors}"
