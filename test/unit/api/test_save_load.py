"""CompiledModel.save and tessel.load: the saved folder runs in a process that never imports
the compiler (xDSL, llvmlite), with the compiled model's outputs; a CPU without the features
the code was compiled for is refused in one line; a damaged folder is one line too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tessel
from tessel.runtime import artefact
from tessel.runtime.errors import TesselError

# Runs in a fresh interpreter: load, call, report the compiler modules that were imported.
CHILD = """
import sys, time, numpy as np
start = time.perf_counter()
import tessel
model = tessel.load(sys.argv[1])
loaded = time.perf_counter()
inputs = dict(np.load(sys.argv[2]))
outputs = model(**inputs)
called = time.perf_counter()
np.savez(sys.argv[3], **outputs)
heavy = sorted(m for m in ("xdsl", "llvmlite", "onnx", "tessel.pipelines", "tessel.ir") if m in sys.modules)
print("imported:", ",".join(heavy) or "-", f"load_ms={(loaded - start) * 1e3:.1f}", f"first_call_ms={(called - loaded) * 1e3:.1f}")
"""


def load_in_fresh_process(folder: Path, inputs: dict[str, np.ndarray], tmp: Path) -> tuple[dict[str, np.ndarray], str]:
    """Run the saved model in a new interpreter; its outputs and its report line."""
    np.savez(tmp / "in.npz", **inputs)
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), str(tmp / "in.npz"), str(tmp / "out.npz")],
        capture_output=True,
        text=True,
        cwd=tmp,
    )
    assert result.returncode == 0, result.stderr
    with np.load(tmp / "out.npz") as data:
        return dict(data), result.stdout.strip()


@pytest.mark.parametrize("fixture", ["compiled_1", "compiled_2"])
def test_saved_model_runs_without_the_compiler(fixture: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    model = request.getfixturevalue(fixture)
    folder = model.save(tmp_path / "small.tessel")
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.json", "model.so", "plan.json", "weights.npz"]
    x = np.random.default_rng(3).standard_normal((1, 3, 8, 8)).astype(np.float32)
    outputs, report = load_in_fresh_process(folder, {"x": x}, tmp_path)
    assert report.startswith("imported: - "), report
    np.testing.assert_array_equal(outputs["y"], model(x)["y"])


def test_load_in_process_and_manifest(compiled_2, tmp_path: Path) -> None:
    folder = compiled_2.save(tmp_path / "m")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["tessel"] == tessel.__version__ and manifest["threads"] == 2
    assert manifest["inputs"] == [{"name": "x", "shape": [1, 3, 8, 8], "dtype": "<f4"}]
    assert manifest["target"]["cpu"] and "sse2" in manifest["target"]["features"]
    loaded = tessel.load(folder, threads=1)
    assert loaded.inputs == compiled_2.inputs and loaded.threads == 1
    x = np.ones((1, 3, 8, 8), np.float32)
    np.testing.assert_array_equal(loaded(x)["y"], compiled_2(x)["y"])
    compiled_2.save(folder)  # a saved model's folder is replaced
    loaded.close()
    with pytest.raises(TesselError, match="the model was closed"):
        loaded(x)


def test_a_cpu_without_the_features_is_refused(compiled_1, tmp_path: Path, monkeypatch) -> None:
    folder = compiled_1.save(tmp_path / "m")
    required = json.loads((folder / "manifest.json").read_text())["target"]["features"]
    checked = [f for f in required if f in artefact._CPUINFO]
    assert checked, "the manifest names no instruction-set feature that load checks"
    monkeypatch.setattr(artefact, "host_features", lambda: {"fpu"})
    with pytest.raises(TesselError) as err:
        tessel.load(folder)
    message = str(err.value)
    assert "which this CPU lacks" in message and all(f in message for f in checked) and "\n" not in message


def test_missing_features_maps_llvm_names_to_cpuinfo() -> None:
    assert artefact.missing_features(["avx512f", "sse4.2", "fast-gather"], {"sse4_2"}) == ["avx512f"]
    assert artefact.missing_features(["avx512vnni"], {"avx512_vnni"}) == []


def test_damaged_or_foreign_folders(compiled_1, tmp_path: Path) -> None:
    with pytest.raises(TesselError, match="no such folder"):
        tessel.load(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TesselError, match="has no manifest.json"):
        tessel.load(tmp_path / "empty")
    folder = compiled_1.save(tmp_path / "m")
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps(manifest | {"format": 99}))
    with pytest.raises(TesselError, match="saved in model format 99"):
        tessel.load(folder)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "file").write_text("x")
    with pytest.raises(TesselError, match="exists and is not a saved Tessel model"):
        compiled_1.save(tmp_path / "other")


def test_save_without_a_c_compiler_is_one_line(compiled_1, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CC", "no-such-compiler-tessel")
    with pytest.raises(TesselError, match="there is none"):
        compiled_1.save(tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_compiled_for_a_fleet_loads_on_an_avx2_cpu(small, tmp_path: Path, monkeypatch) -> None:
    """mcpu="x86-64-v3" on any machine with AVX2 or more: AVX2 code that runs here with the
    reference's result and, saved, asks only AVX2-level features of the CPU it is loaded on
    (a simulated AVX2 server accepts it; it refuses the model compiled for this host where
    this host has AVX-512)."""
    from .conftest import reference

    fleet = tessel.compile(small, threads=1, mcpu="x86-64-v3")
    x = np.random.default_rng(5).standard_normal((1, 3, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(fleet(x)["y"], reference(small, x), rtol=1e-4, atol=1e-5)
    features = fleet.target["features"]
    assert fleet.target["cpu"] == "x86-64-v3" and "avx2" in features and "fma" in features
    assert not [f for f in features if f.startswith("avx512")]
    folder = fleet.save(tmp_path / "fleet")
    avx2_server = {artefact._CPUINFO.get(f, f) for f in features}
    monkeypatch.setattr(artefact, "host_features", lambda: avx2_server)
    np.testing.assert_array_equal(tessel.load(folder, threads=1)(x)["y"], fleet(x)["y"])
    native = tessel.compile(small, threads=1)
    if any(f.startswith("avx512") for f in native.target["features"]):
        with pytest.raises(TesselError, match="which this CPU lacks"):
            tessel.load(native.save(tmp_path / "native"))


def test_compile_for_a_cpu_this_one_cannot_run_is_one_line(small) -> None:
    with pytest.raises(TesselError, match=r"compiled for graniterapids, which has .*amx-tile"):
        tessel.compile(small, mcpu="graniterapids")
    with pytest.raises(TesselError, match="unknown CPU 'i486'"):
        tessel.compile(small, mcpu="i486")
