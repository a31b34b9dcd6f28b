"""The saved-model folder: its files, its manifest, and the checks made before loading it.

A folder written by `CompiledModel.save` holds

- `model.so`: the stage functions and the native executor, LLVM's object code linked by
  the system's C compiler (`cc -shared`);
- `plan.json`: the memory plan (which buffers exist, which are views into the arena, which
  hold weights) and the launches (stage symbol, argument slots, parallel extent);
- `weights.npz`: every constant the launches read, by index;
- `manifest.json`: the format, the Tessel version, the target (triple, CPU name and the
  features the code was compiled for), the thread count and the input/output signature.

A saved model only runs where its machine code can: the same architecture, and a CPU with
every instruction-set feature the code may use. Those are checked before the library is
loaded, because running AVX-512 code on a CPU without it dies with SIGILL, not an error.
"""

from __future__ import annotations

import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tessel.runtime.errors import TesselError

FORMAT = 1
MANIFEST = "manifest.json"
PLAN = "plan.json"
WEIGHTS = "weights.npz"
LIBRARY = "model.so"

# LLVM's names of the instruction-set features code generation uses, and what Linux calls
# them in /proc/cpuinfo where the two differ. Features outside this table (tuning hints
# such as "fast-gather", or ones Linux does not list) are not checked.
_CPUINFO = {
    "sse": "sse",
    "sse2": "sse2",
    "sse3": "pni",
    "ssse3": "ssse3",
    "sse4.1": "sse4_1",
    "sse4.2": "sse4_2",
    "popcnt": "popcnt",
    "avx": "avx",
    "avx2": "avx2",
    "fma": "fma",
    "f16c": "f16c",
    "bmi": "bmi1",
    "bmi2": "bmi2",
    "lzcnt": "abm",
    "movbe": "movbe",
    "avx512f": "avx512f",
    "avx512bw": "avx512bw",
    "avx512cd": "avx512cd",
    "avx512dq": "avx512dq",
    "avx512vl": "avx512vl",
    "avx512vnni": "avx512_vnni",
    "avx512bf16": "avx512_bf16",
    "avx512fp16": "avx512_fp16",
    "avx512vbmi": "avx512vbmi",
    "avx512vbmi2": "avx512_vbmi2",
    "avx512ifma": "avx512ifma",
    "avx512bitalg": "avx512_bitalg",
    "avx512vpopcntdq": "avx512_vpopcntdq",
    "avxvnni": "avx_vnni",
    "gfni": "gfni",
    "vaes": "vaes",
    "vpclmulqdq": "vpclmulqdq",
}


@dataclass(frozen=True)
class Port:
    """One input or output of a model: its name, shape and element type."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype.str}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Port:
        return Port(str(data["name"]), tuple(int(d) for d in data["shape"]), np.dtype(data["dtype"]))


def read_json(folder: Path, name: str) -> dict[str, Any]:
    path = folder / name
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise TesselError(f"{folder} is not a saved Tessel model: it has no {name}") from None
    except (OSError, ValueError) as err:
        raise TesselError(f"cannot read {path}: {err}") from err
    if not isinstance(data, dict):
        raise TesselError(f"{path} is not a Tessel {name}")
    return data


def write_json(folder: Path, name: str, data: dict[str, Any]) -> None:
    tmp = folder / f".{name}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, folder / name)


def host_features() -> set[str] | None:
    """The CPU feature flags Linux reports for this machine (None where it reports none)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return None


def missing_features(required: list[str], available: set[str]) -> list[str]:
    """The features in `required` (LLVM names) that a CPU with cpuinfo `available` lacks."""
    return [f for f in required if f in _CPUINFO and _CPUINFO[f] not in available]


def check_machine(manifest: dict[str, Any], folder: Path) -> None:
    """Refuse, in one line, a saved model this machine cannot run."""
    if manifest.get("format") != FORMAT:
        raise TesselError(
            f"{folder} was saved in model format {manifest.get('format')} by Tessel {manifest.get('tessel')}; "
            f"this runtime reads format {FORMAT}: save it again with this version"
        )
    target = manifest.get("target", {})
    arch = str(target.get("triple", "")).split("-")[0]
    here = platform.machine().lower().replace("amd64", "x86_64")
    if arch and arch != here:
        raise TesselError(f"{folder} holds {arch} code; this machine is {here}")
    available = host_features()
    if available is None:
        raise TesselError(f"cannot check this CPU's features (no /proc/cpuinfo) before running {folder}'s native code")
    missing = missing_features(list(target.get("features", [])), available)
    if missing:
        raise TesselError(
            f"{folder} was compiled for a CPU with {', '.join(missing)}, which this CPU lacks "
            f"(compiled for {target.get('cpu', '?')}): compile the model on this machine"
        )
