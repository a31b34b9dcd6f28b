"""What this installation of Tessel can do: `python -m tessel`.

Optional parts are probed without importing them where a spec lookup suffices (importing
torch or Ray takes seconds); the C compiler is needed to save compiled models.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import sys
from dataclasses import dataclass

from tessel.runtime.version import __version__

TARGETS = {
    "cpu": "x86-64 / AArch64 through LLVM (tessel.compile, tessel-run --target cpu)",
    "gpu": "NVIDIA PTX through LLVM (tessel-run --target gpu; --emulate on the CPU)",
    "vta": "the VTA accelerator on its simulator (tessel-run --target vta)",
    "seal": "BFV homomorphic encryption on Microsoft SEAL (tessel.he)",
    "nccl": "collectives as MSCCL XML, simulated, executed on gloo (tessel.coll)",
    "reference": "numpy reference semantics of every dialect",
}


@dataclass(frozen=True)
class Part:
    name: str
    available: bool
    detail: str


def _module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _cuda() -> Part:
    for lib in ("libcuda.so.1", "libcuda.so"):
        for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/cuda/lib64", "/usr/lib/wsl/lib"):
            if os.path.exists(os.path.join(folder, lib)):
                return Part("CUDA driver", True, os.path.join(folder, lib))
    return Part("CUDA driver", False, "no libcuda: the gpu target emits PTX and runs --emulate only")


def optional_parts() -> list[Part]:
    """The optional parts Tessel uses when they are present."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    return [
        Part("SEAL (tenseal)", _module("tenseal"), "tessel.he runs encrypted programs"),
        Part("onnxruntime", _module("onnxruntime"), "a peer for --check and --time"),
        _cuda(),
        Part("Ray", _module("ray"), "tessel-tune --ray: measurement on a cluster"),
        Part("torch (gloo)", _module("torch"), "tessel.coll executes collectives on gloo"),
        Part("C compiler", cc is not None, cc or "none: CompiledModel.save cannot link a shared library"),
    ]


def report() -> str:
    """The text `python -m tessel` prints."""
    lines = [
        f"tessel {__version__} (Python {platform.python_version()}, {platform.machine()}, {sys.platform})",
        "targets:",
        *(f"  {name:<10} {what}" for name, what in TARGETS.items()),
        "optional parts:",
        *(f"  {'yes' if p.available else 'no ':<4} {p.name:<16} {p.detail}" for p in optional_parts()),
    ]
    return "\n".join(lines)


def main() -> None:
    print(report())
