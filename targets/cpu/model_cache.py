"""The model cache: a compiled model found again by what it was compiled from, so that a
second `tessel.compile` of the same model runs no pass and no LLVM at all.

The object cache (jit.py) saves LLVM's work per kernel, but a warm compile still imports,
runs every pass and emits LLVM IR, only to find each kernel's object already there: on
ResNet-18 0.5 s, against onnxruntime's session start in a tenth of that. This cache sits
above the passes. Its key hashes everything the result depends on:

- the imported tg module as text (operators, attributes, shapes, small constants) and every
  weight's name, type, shape and bytes (so a model with other weights is another entry);
- the CPU compiled for (LLVM triple, processor, features, and the parameters the schedules
  read from it), the tuning records' content, the versions of llvmlite, xDSL, onnx and numpy;
- the compiler itself: the content of every source file of the packages that compile
  (`SOURCES`), so an edited pass never returns a stale model.

An entry (`<cache>/models/<key>/`) holds the plan (runtime/model.py's data), the folded
weights in one file, the object-cache keys of the runtime and of each stage, the model's
LLVM IR for `save()`, and the compile report. A hit loads the plan and the weights and
rebuilds the code from the object cache (`jit.CachedObjects`); an entry whose objects are
gone is a miss. Entries are written to a temporary folder and renamed into place, so
concurrent compiles never see half of one; the oldest are evicted past `limit_bytes()`.

Computing that key means importing, verifying and printing the model (0.2 s of ResNet-18's
0.35 s from the cache), so a compile first looks for a note keyed by the model as given:
the digest of its ONNX content and the input shapes, under the same compiler, CPU, records
and precision (`source_key`). The note (`<cache>/models/<source key>.source.json`) names
the entry that model compiled to and its ports; a note whose entry is gone is a miss and is
removed at the next eviction.

`TESSEL_MODEL_CACHE=0` turns the cache off (the test suite does: its monkeypatches change
the compiler in ways no source hash sees).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from tessel.targets.cpu.cpu_target import CpuTarget
from tessel.targets.cpu.jit import CachedObjects, ShardedModule, cache_dir

FORMAT = 1
ENTRY, WEIGHTS, LLVM_IR = "entry.json", "weights.bin", "model.ll"
SOURCE_SUFFIX = ".source.json"  # <models>/<source_key>.source.json: which entry a model compiled to
SOURCES = ("api", "dialects", "frontends", "ir", "passes", "pipelines", "runtime", "targets")
_ALIGN = 64  # each weight starts on a cache line, as the compiler's own buffers do


def enabled() -> bool:
    return os.environ.get("TESSEL_MODEL_CACHE", "1") not in ("0", "false", "no", "off")


def models_dir() -> Path:
    return cache_dir().parent / "models"


def limit_bytes() -> int:
    """The cache's size past which the least recently used entries go (TESSEL_MODEL_CACHE_MB,
    default 4 GiB: a few dozen mid-sized models)."""
    return int(float(os.environ.get("TESSEL_MODEL_CACHE_MB", "4096")) * 2**20)


@cache
def compiler_fingerprint() -> str:
    """A hash of the compiler's source files (their paths and bytes) and of the libraries
    whose behaviour the compiled code depends on."""
    from importlib.metadata import version

    libraries = "|".join(f"{name}={version(name)}" for name in ("llvmlite", "xdsl", "onnx", "numpy"))
    h = hashlib.sha256(f"{sys.version_info[:2]}|{libraries}".encode())
    root = Path(__file__).resolve().parents[2]
    for package in SOURCES:
        for path in sorted((root / package).rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def _context(target: CpuTarget, records: str | None, precision: str) -> hashlib._Hash:
    """A hash of what every key shares: the compiler, the CPU, the precision, the records."""
    h = hashlib.sha256(f"tessel-model-cache {FORMAT}|{compiler_fingerprint()}".encode())
    h.update(
        f"|{target.triple}|{target.cpu}|{target.features}|{target.vector_bits}|{sorted(target.dot4_lanes)}|{target.l1d_bytes}|{target.l2_bytes}".encode()
    )
    h.update(f"|bf16 {target.bf16}|precision {precision}|".encode())
    h.update(hashlib.sha256(Path(records).read_bytes()).digest() if records is not None else b"no records")
    return h


def model_key(
    module_text: str, weights: Mapping[str, np.ndarray], target: CpuTarget, records: str | None, precision: str = "fp32"
) -> str:
    """The entry a model compiled from `module_text` and `weights` for `target` (at
    `precision`) would have."""
    h = _context(target, records, precision)
    h.update(module_text.encode())
    for name in sorted(weights):
        array = np.ascontiguousarray(weights[name])
        h.update(f"|{name}|{array.dtype.str}|{array.shape}|".encode())
        h.update(array.reshape(-1).view(np.uint8).data)
    return h.hexdigest()


def source_key(
    model_digest: bytes,
    input_shapes: Mapping[str, Sequence[int]],
    target: CpuTarget,
    records: str | None,
    precision: str = "fp32",
) -> str:
    """The key of a model as the user gave it (the digest of its ONNX content,
    frontends/onnx/digest.py, and the input shapes chosen), known before any import:
    `recall` finds the entry it compiled to without importing, verifying and printing the
    model to compute `model_key` (0.2 s of a 0.35 s cached compile of ResNet-18, 3.7 s of
    a GRU's)."""
    h = _context(target, records, precision)
    h.update(json.dumps(sorted((k, [int(d) for d in v]) for k, v in input_shapes.items())).encode())
    h.update(model_digest)
    return h.hexdigest()


def remember(source: str, key: str, ports: Mapping[str, Any]) -> None:
    """Note that the model of `source` compiled to the entry `key`, and its ports (the
    inputs and outputs, as the import found them). Best effort: a failed write costs only
    the next compile's shortcut."""
    path = models_dir() / f"{source}{SOURCE_SUFFIX}"
    try:
        models_dir().mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"format": FORMAT, "entry": key, "ports": dict(ports)}))
        os.replace(tmp, path)
    except OSError:
        pass


def recall(source: str, target: CpuTarget) -> tuple[str, Hit, dict[str, Any]] | None:
    """The entry key, the entry and the ports `remember` noted for `source`; None if there
    is no note or its entry is gone."""
    try:
        note = json.loads((models_dir() / f"{source}{SOURCE_SUFFIX}").read_text())
        if note.get("format") != FORMAT:
            return None
        key, ports = str(note["entry"]), dict(note["ports"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    hit = lookup(key, target)
    return None if hit is None else (key, hit, ports)


@dataclass
class Hit:
    """A compiled model as the cache gives it back."""

    plan: dict[str, Any]
    weights: dict[str, np.ndarray]
    objects: CachedObjects
    report: dict[str, Any]
    llvm_ir_path: Path


def lookup(key: str, target: CpuTarget) -> Hit | None:
    """The entry for `key`, with its code loaded; None if there is none (or it is damaged,
    or its objects have left the object cache)."""
    folder = models_dir() / key
    try:
        entry = json.loads((folder / ENTRY).read_text())
        if entry.get("format") != FORMAT:
            return None
        weights = _read_weights(folder / WEIGHTS, entry["weights"])
        objects = CachedObjects(entry["stages"], entry["runtime"], entry["symbol"], target)
    except (OSError, ValueError, KeyError):
        return None
    os.utime(folder)  # recently used: the last to be evicted
    return Hit(entry["plan"], weights, objects, entry["report"], folder / LLVM_IR)


def store(
    key: str,
    code: object,
    plan: dict[str, Any],
    weights: Mapping[str, np.ndarray],
    llvm_ir: str,
    report: dict[str, Any],
) -> bool:
    """Keep a compiled model under `key`; False (and nothing written) when its code did not
    all come through the object cache, or the cache cannot be written."""
    if not isinstance(code, ShardedModule):
        return False
    modules = [code.runtime, *code.stages.values()]
    if any(m.cached is None or not m.cached.exists() for m in modules):
        return False
    entry = {
        "format": FORMAT,
        "plan": plan,
        "runtime": code.runtime.key,
        "stages": {name: m.key for name, m in code.stages.items()},
        "symbol": code.symbol,
        "report": report,
    }
    root = models_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{key[:16]}.", dir=root))
        try:
            entry["weights"] = _pack(weights, tmp / WEIGHTS)
            (tmp / LLVM_IR).write_text(llvm_ir)
            (tmp / ENTRY).write_text(json.dumps(entry))
            os.rename(tmp, root / key)  # (fails if another process stored it first: fine)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        _evict(root, keep=key)
    except OSError:
        return False
    return True


def _pack(weights: Mapping[str, np.ndarray], path: Path) -> list[dict[str, Any]]:
    index, offset = [], 0
    with open(path, "wb") as f:
        for name, array in weights.items():
            array = np.ascontiguousarray(array)
            pad = -offset % _ALIGN
            f.write(b"\0" * pad)
            offset += pad
            index.append({"name": name, "offset": offset, "shape": list(array.shape), "dtype": array.dtype.str})
            f.write(array.reshape(-1).view(np.uint8).data)
            offset += array.nbytes
    return index


def _read_weights(path: Path, index: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The weights as views of the file mapped copy-on-write (aligned as _pack laid them
    out: the mapping starts on a page). Mapped, not read: a hit then costs no 45 MB copy
    (ResNet-18: 0.07 s of a 0.33 s hit), the pages come from the page cache as the first run
    touches them, and processes running the same model share them. The entry's file is
    only ever replaced, never written in place, so the mapping stays what it was."""
    size = path.stat().st_size
    end = max((w["offset"] + _nbytes(w) for w in index), default=0)
    if end > size:
        raise ValueError(f"{path} is shorter than its index")
    data = np.memmap(path, np.uint8, mode="c", shape=(size,)) if size else np.empty(0, np.uint8)
    out = {}
    for w in index:
        dtype = np.dtype(w["dtype"])
        view = data[w["offset"] : w["offset"] + _nbytes(w)]
        out[w["name"]] = np.ndarray(tuple(w["shape"]), dtype, buffer=view)
    return out


def _nbytes(w: dict[str, Any]) -> int:
    return int(np.prod(w["shape"], dtype=np.int64)) * np.dtype(w["dtype"]).itemsize


def _evict(root: Path, keep: str) -> None:
    """Remove the least recently used entries until the cache fits its limit."""
    entries, notes = [], []
    for folder in root.iterdir():
        if folder.name.endswith(SOURCE_SUFFIX):
            notes.append(folder)
        if folder.name.startswith(".") or not folder.is_dir():
            continue
        size = sum(f.stat().st_size for f in folder.iterdir())
        entries.append((folder.stat().st_mtime, size, folder))
    total, limit = sum(e[1] for e in entries), limit_bytes()
    for _, size, folder in sorted(entries):
        if total <= limit:
            break
        if folder.name != keep:
            shutil.rmtree(folder, ignore_errors=True)
            total -= size
    for note in notes:  # the notes of entries that are gone
        try:
            if not (root / json.loads(note.read_text())["entry"]).is_dir():
                note.unlink()
        except (OSError, ValueError, KeyError, TypeError):
            note.unlink(missing_ok=True)
