"""The model cache (targets/cpu/model_cache.py): a second `tessel.compile` of the same model
runs no pass and gives the same outputs; anything the result depends on (weights, CPU,
records, the compiler's source) is another entry; a damaged entry or one whose objects left
the object cache is a miss, never an error; old entries are evicted past the size limit.
The same model's bytes find their entry without an import (the source note)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest

import tessel
from tessel.targets.cpu import model_cache

from .conftest import reference, small_model

X = np.random.default_rng(5).standard_normal((1, 3, 8, 8)).astype(np.float32)


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TESSEL_MODEL_CACHE", "1")
    return tmp_path / "cache" / "models"


def from_cache(model: tessel.CompiledModel) -> bool:
    return "model-cache" in model.report.seconds


def entries(cache: Path) -> list[str]:
    return (
        sorted(p.name for p in cache.iterdir() if p.is_dir() and not p.name.startswith(".")) if cache.exists() else []
    )


def notes(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"*{model_cache.SOURCE_SUFFIX}")) if cache.exists() else []


def test_second_compile_is_a_hit_with_the_same_outputs(cache: Path, tmp_path: Path) -> None:
    small = small_model()
    first = tessel.compile(small, threads=2)
    assert not from_cache(first) and len(entries(cache)) == 1
    second = tessel.compile(small, threads=1)  # the thread count is the runtime's: same entry
    assert from_cache(second), second.report.code
    assert "no pass" in second.report.time_passes()
    assert second.report.kernels == first.report.kernels and second.report.stages == first.report.stages
    np.testing.assert_array_equal(second(X)["y"], first(X)["y"])
    np.testing.assert_allclose(second(X)["y"], reference(small, X), rtol=1e-5, atol=1e-5)
    # the hit's IR is read for save(): the saved model runs as the compiled one
    loaded = tessel.load(second.save(tmp_path / "m.tessel"))
    np.testing.assert_array_equal(loaded(X)["y"], first(X)["y"])


def test_what_the_result_depends_on_is_in_the_key(cache: Path, tmp_path: Path) -> None:
    tessel.compile(small_model(0))
    other = tessel.compile(small_model(1))  # other weights
    assert not from_cache(other)
    np.testing.assert_allclose(other(X)["y"], reference(small_model(1), X), rtol=1e-5, atol=1e-5)
    assert not from_cache(tessel.compile(small_model(0), mcpu="x86-64-v3"))
    records = tmp_path / "r.jsonl"
    tessel.tune(small_model(0), trials=1, batch=1, workers=1, threads=1, records=records, progress=False)
    assert not from_cache(tessel.compile(small_model(0), records=records))
    assert len(entries(cache)) == 4
    assert from_cache(tessel.compile(small_model(0), mcpu="x86-64-v3"))
    assert from_cache(tessel.compile(small_model(0), records=records))
    with records.open("a") as f:  # the records' content, not their path
        f.write(records.read_text().splitlines()[0] + "\n")
    assert not from_cache(tessel.compile(small_model(0), records=records))


def test_key_covers_the_compiler_source(monkeypatch: pytest.MonkeyPatch) -> None:
    from tessel.targets.cpu import cpu_target

    args = ("module {}", {"w": np.zeros(3, np.float32)}, cpu_target.host(), None)
    before = model_cache.model_key(*args)
    assert model_cache.model_key(*args) == before
    monkeypatch.setattr(model_cache, "compiler_fingerprint", lambda: "an edited pass")
    assert model_cache.model_key(*args) != before
    # the fingerprint reads the passes and the code generator, not only the API
    root = Path(model_cache.__file__).resolve().parents[2]
    assert {"passes", "targets", "dialects", "frontends"} <= set(model_cache.SOURCES)
    assert (root / "passes" / "tg").is_dir()


def test_cache_off(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tessel.compile(small_model(), cache=False)
    assert entries(cache) == []
    monkeypatch.setenv("TESSEL_MODEL_CACHE", "0")
    tessel.compile(small_model())
    assert entries(cache) == []


@pytest.mark.parametrize("damage", ["weights", "entry", "objects"])
def test_damaged_entry_is_a_miss(cache: Path, damage: str) -> None:
    small = small_model()
    tessel.compile(small)
    (key,) = entries(cache)
    folder = cache / key
    if damage == "weights":
        data = (folder / model_cache.WEIGHTS).read_bytes()
        (folder / model_cache.WEIGHTS).write_bytes(data[: len(data) // 2])
    elif damage == "entry":
        (folder / model_cache.ENTRY).write_text("{")
    else:
        entry = json.loads((folder / model_cache.ENTRY).read_text())
        stage = next(iter(entry["stages"].values()))
        (cache.parent / "objects" / f"{stage}.o").unlink()
    again = tessel.compile(small)
    assert not from_cache(again)
    np.testing.assert_allclose(again(X)["y"], reference(small, X), rtol=1e-5, atol=1e-5)


def test_least_recently_used_entries_are_evicted(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tessel.compile(small_model(0))
    (first,) = entries(cache)
    size = sum(f.stat().st_size for f in (cache / first).iterdir())
    monkeypatch.setenv("TESSEL_MODEL_CACHE_MB", str(1.5 * size / 2**20))  # room for one
    tessel.compile(small_model(1))
    (second,) = entries(cache)
    assert second != first


def test_model_from_a_file_is_a_hit(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "small.onnx"
    onnx.save(small_model(), path)
    tessel.compile(path)
    assert from_cache(tessel.compile(path))
    assert from_cache(tessel.compile(path.read_bytes()))  # the same model as bytes


def test_the_same_bytes_find_their_entry_without_an_import(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tessel.frontends.onnx as frontend

    small = small_model()
    first = tessel.compile(small, threads=2)
    assert len(notes(cache)) == 1
    with monkeypatch.context() as patch:
        patch.setattr(frontend, "import_model", lambda *a, **k: pytest.fail("imported a noted model"))
        second = tessel.compile(small, threads=1)
    assert from_cache(second)
    assert second.inputs == first.inputs and second.outputs == first.outputs
    np.testing.assert_array_equal(second(X)["y"], first(X)["y"])
    # other input shapes are another note (the same entry where the import says so)
    tessel.compile(small, input_shapes={"x": [1, 3, 8, 8]})
    assert len(notes(cache)) == 2 and len(entries(cache)) == 1


def test_a_note_whose_entry_is_gone_is_a_miss_and_is_cleaned(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tessel.compile(small_model(0))
    (first,) = entries(cache)
    shutil.rmtree(cache / first)
    again = tessel.compile(small_model(0))
    assert not from_cache(again)
    np.testing.assert_allclose(again(X)["y"], reference(small_model(0), X), rtol=1e-5, atol=1e-5)
    assert from_cache(tessel.compile(small_model(0)))  # noted anew
    (note,) = notes(cache)
    note.write_text("{")  # damaged: a miss, not an error
    assert from_cache(tessel.compile(small_model(0)))  # (found by the imported module's key)
    size = sum(f.stat().st_size for f in (cache / first).iterdir())
    monkeypatch.setenv("TESSEL_MODEL_CACHE_MB", str(1.5 * size / 2**20))  # room for one
    tessel.compile(small_model(1))
    assert entries(cache) != [first]
    assert all(json.loads(n.read_text())["entry"] in entries(cache) for n in notes(cache))
