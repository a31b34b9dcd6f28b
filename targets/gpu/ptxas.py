"""NVIDIA's PTX assembler, where it is installed: the PTX we emit checked by the tool the
driver itself uses, and each kernel's resources (registers, spills, shared memory, stack).

Registers decide occupancy on the GPU (65536 per SM: 256 threads of 128 registers fit
twice, of 129 once), and PTX's `.reg` counts are virtual, so only ptxas can say. It comes
from $TESSEL_PTXAS, the PATH, or the `nvidia-cuda-nvcc-cu12` wheel (a test dependency),
so the PTX of every example model is assembled in CI on machines without a GPU.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from tessel.ir.diagnostics import TesselError


@dataclass(frozen=True)
class KernelResources:
    registers: int
    spill_stores: int
    spill_loads: int
    stack: int
    shared: int
    barriers: int


def find_ptxas() -> str | None:
    given = os.environ.get("TESSEL_PTXAS")
    if given:
        return given
    on_path = shutil.which("ptxas")
    if on_path:
        return on_path
    spec = importlib.util.find_spec("nvidia.cuda_nvcc") if importlib.util.find_spec("nvidia") else None
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(root, "bin", "ptxas")
        if os.path.isfile(path):
            if not os.access(path, os.X_OK):
                try:
                    os.chmod(path, 0o755)
                except OSError:
                    return None
            return path
    return None


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?")


def assemble(ptx: str, arch: str = "sm_90", ptxas: str | None = None) -> dict[str, KernelResources]:
    """Assemble `ptx` for `arch` (a TesselError with ptxas's message if it is refused) and
    return each kernel's resources."""
    tool = ptxas or find_ptxas()
    if tool is None:
        raise TesselError(
            "no ptxas found (set TESSEL_PTXAS, put CUDA's bin on the PATH, or pip install nvidia-cuda-nvcc-cu12)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        p = subprocess.run([tool, f"-arch={arch}", "-v", src, "-o", out], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        first = next((line for line in p.stderr.splitlines() if "error" in line.lower()), p.stderr.strip()[:300])
        raise TesselError(f"ptxas refused the PTX for {arch}: {first}")
    kernels: dict[str, KernelResources] = {}
    name, stack = None, (0, 0, 0)
    for line in p.stderr.splitlines():
        if m := _ENTRY.search(line):
            name = m.group(1)
        elif (m := _STACK.search(line)) and name:
            stack = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        elif (m := _USED.search(line)) and name:
            kernels[name] = KernelResources(
                int(m.group(1)), stack[1], stack[2], stack[0], int(m.group(3) or 0), int(m.group(2) or 0)
            )
            name = None
    return kernels
