"""Schedule search: the space of a stage's schedules, measurement, cost model, search.

`tessel.tune` is both this package and the public function `tessel.tune(model, ...)`
(`tessel.api.tuning.tune`): importing any module of the package binds the name `tune` on
`tessel` to the package, so the package itself is callable and calls the function the API
layer registers (`register`). The API sits above this package: it registers itself, and a
call made before it was imported loads it by name, never through an import here.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any


class _CallablePackage(ModuleType):
    entry: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _CallablePackage.entry is None:
            importlib.import_module("tessel.api.tuning")  # registers itself
        assert _CallablePackage.entry is not None
        return _CallablePackage.entry(*args, **kwargs)


def register(entry: Callable[..., Any]) -> ModuleType:
    """Make `tessel.tune(...)` call `entry`; returns this package."""
    _CallablePackage.entry = entry
    return sys.modules[__name__]


sys.modules[__name__].__class__ = _CallablePackage
