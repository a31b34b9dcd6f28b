"""ResNet-18 (examples/models/resnet18.py) compiled, saved, and loaded in a process that
imports neither xDSL nor llvmlite: the same outputs as the compiled model."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

import tessel

ROOT = Path(__file__).resolve().parents[3]


def _resnet18():
    import sys

    sys.path.insert(0, str(ROOT / "examples" / "models"))
    try:
        spec = importlib.util.spec_from_file_location("resnet18_example", ROOT / "examples" / "models" / "resnet18.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.build()
    finally:
        sys.path.remove(str(ROOT / "examples" / "models"))


def test_resnet18_saved_and_loaded_without_the_compiler(tmp_path: Path) -> None:
    model = tessel.compile(_resnet18(), threads=2)
    folder = model.save(tmp_path / "resnet18.tessel")
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
    expected = model(input=x)["logits"]
    # the child process of test_save_load (a test module is not importable by name here)
    spec = importlib.util.spec_from_file_location("save_load", Path(__file__).with_name("test_save_load.py"))
    assert spec is not None and spec.loader is not None
    save_load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(save_load)
    outputs, report = save_load.load_in_fresh_process(folder, {"input": x}, tmp_path)
    assert report.startswith("imported: - "), report
    print(report)  # load_ms, first_call_ms (pytest -s)
    np.testing.assert_array_equal(outputs["logits"], expected)
