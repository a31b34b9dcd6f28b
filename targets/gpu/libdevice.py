"""NVIDIA's libdevice: the device math library (`__nv_sinf`, `__nv_pow`, `__nv_fmod`, ...)
linked into GPU modules that call it, as clang and MLIR's gpu-to-nvvm do.

NVPTX has no libm, and LLVM lowers what it has no instruction for (frem, f64 exp) either
approximately (frem as x - trunc(x / y) * y) or not at all. So the GPU emitter calls the
libdevice function where an op needs one, and `link` brings in that bitcode: its
functions made internal, so that the optimizer inlines what is called and drops the rest;
its `__nvvm_reflect` queries are answered by LLVM's NVVMReflect pass (no flush-to-zero).

The bitcode comes from $TESSEL_LIBDEVICE, the `nvidia-cuda-nvcc-cu12` wheel (a test
dependency, which also brings ptxas), or a CUDA installation ($CUDA_HOME, /usr/local/cuda).
"""

from __future__ import annotations

import glob
import importlib.util
import os
from functools import cache

from tessel.ir.diagnostics import TesselError

PREFIX = "__nv_"


def function(name: str, single: bool) -> str:
    """The libdevice function for a C math function name: `sin` -> `__nv_sinf` (f32)."""
    return f"{PREFIX}{name}{'f' if single else ''}"


def find() -> str | None:
    """The path of libdevice.10.bc, or None."""
    given = os.environ.get("TESSEL_LIBDEVICE")
    if given:
        return given
    roots = []
    if importlib.util.find_spec("nvidia") is not None and (spec := importlib.util.find_spec("nvidia.cuda_nvcc")):
        roots += list(spec.submodule_search_locations or [])
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            roots.append(os.environ[env])
    roots += sorted(glob.glob("/usr/local/cuda*"), reverse=True)
    for root in roots:
        path = os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")
        if os.path.isfile(path):
            return path
    return None


@cache
def _bitcode() -> bytes:
    path = find()
    if path is None:
        raise TesselError(
            "the GPU code calls device math functions and no libdevice.10.bc was found "
            "(set TESSEL_LIBDEVICE, install CUDA, or pip install nvidia-cuda-nvcc-cu12)"
        )
    with open(path, "rb") as f:
        return f.read()


def needed(ir: str) -> bool:
    return f"@{PREFIX}" in ir


def link(module, data_layout: str, triple: str) -> None:  # noqa: ANN001 - an llvmlite ModuleRef
    """Link libdevice into `module` (an llvmlite module for `triple`), its functions internal."""
    import llvmlite.binding as llvm

    library = llvm.parse_bitcode(_bitcode())
    library.triple = triple
    library.data_layout = data_layout
    module.link_in(library)
    for fn in module.functions:
        if fn.name.startswith(PREFIX) and not fn.is_declaration:
            fn.linkage = "internal"
