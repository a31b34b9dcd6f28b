"""Python's cycle collector, paused while a compile builds IR.

Lowering a model allocates hundreds of thousands of IR objects (operations, values, uses,
attributes) that stay alive until the pass that replaces them. Each allocation counts towards
the collector's thresholds, and every full collection walks every live object: on ResNet-18
that was a fifth of the compile. The garbage a compile leaves is almost all freed by
reference counting; what is cyclic is collected at the next collection after the compile.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def collector_paused() -> Iterator[None]:
    """Within: no automatic cycle collection (nested uses and a disabled collector kept)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def without_cycle_collection(fn: Callable[P, R]) -> Callable[P, R]:
    @wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with collector_paused():
            return fn(*args, **kwargs)

    return wrapper
