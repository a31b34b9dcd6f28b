"""Tessel: a compiler for heterogeneous hardware, from Python.

    import tessel
    model = tessel.compile("model.onnx")        # an ONNX path, bytes or onnx.ModelProto
    outputs = model(x)                          # {output name: np.ndarray}
    model.save("model.tessel")                  # a folder with a native shared library
    same = tessel.load("model.tessel")(x)       # numpy + ctypes only, no compiler

Domains: `tessel.compile` / `tessel.load` / `tessel.tune` (tensor programs), `tessel.he`
(homomorphic encryption), `tessel.coll` (collective communication), `tessel.img` (image
pipelines). Every error a user can cause is a one-line `tessel.TesselError`.

The attributes are imported on first use (module `__getattr__`), so `import tessel` loads
nothing heavy: `tessel.load` runs a saved model without importing xDSL or llvmlite.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tessel.api import coll, he, img
    from tessel.api.tensor import CompiledModel, compile
    from tessel.api.tuning import tune
    from tessel.runtime import Model, Port, load
    from tessel.runtime.errors import TesselError
    from tessel.runtime.version import __version__

# attribute -> (module, name in it; None: the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "__version__": ("tessel.runtime.version", "__version__"),
    "TesselError": ("tessel.runtime.errors", "TesselError"),
    "load": ("tessel.runtime", "load"),
    "Model": ("tessel.runtime", "Model"),
    "Port": ("tessel.runtime", "Port"),
    "compile": ("tessel.api.tensor", "compile"),
    "CompiledModel": ("tessel.api.tensor", "CompiledModel"),
    "tune": ("tessel.api.tuning", "package"),  # the package tessel/tune/, callable: tune/__init__.py
    "he": ("tessel.api.he", None),
    "coll": ("tessel.api.coll", None),
    "img": ("tessel.api.img", None),
}

__all__ = [
    "CompiledModel",
    "Model",
    "Port",
    "TesselError",
    "__version__",
    "coll",
    "compile",
    "he",
    "img",
    "load",
    "tune",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'tessel' has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = importlib.import_module(module)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
