"""Resource limits: refuse inputs too large to compile or run, instead of swapping.

A tensor (or memref, or a frame) whose element count passes `max_elements()` is refused
with one line naming the value, its shape and the limit. The default, 2^31 elements (8 GiB
of f32), is far above any model Tessel compiles and far below what would exhaust this
machine's memory; `TESSEL_MAX_ELEMENTS` raises or lowers it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence

from tessel.ir.diagnostics import TesselError

DEFAULT_MAX_ELEMENTS = 2**31
ENV = "TESSEL_MAX_ELEMENTS"


def max_elements() -> int:
    text = os.environ.get(ENV)
    if not text:
        return DEFAULT_MAX_ELEMENTS
    try:
        value = int(text)
    except ValueError:
        raise TesselError(f"{ENV}={text!r} must be a positive integer") from None
    if value < 1:
        raise TesselError(f"{ENV}={text!r} must be a positive integer")
    return value


def check_shape(shape: Sequence[int], what: str | Callable[[], str], where: str | None = None) -> None:
    """Raise when `shape` holds more elements than the limit. Dynamic (negative) dims are
    left to the callers that reject them with their own message. `what` may be a function
    giving the description: the verifier checks every value and prints none that passes."""
    dims = [int(d) for d in shape]
    if any(d < 0 for d in dims):
        return
    count = math.prod(dims)
    limit = max_elements()
    if count > limit:
        shown = "x".join(str(d) for d in dims)
        raise TesselError(
            f"{what if isinstance(what, str) else what()} has {count} elements ({shown}), more than the limit of {limit}; "
            f"set {ENV} to raise it if this machine can hold it",
            where,
        )
