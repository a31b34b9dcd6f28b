"""Host arrays the executors hand to native code: aligned allocations, and the pool that
output arrays of repeated runs come from."""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Sequence
from typing import cast

import numpy as np


def aligned_empty(shape: Sequence[int], dtype: np.dtype | type, align: int = 64) -> np.ndarray:
    """A zeroed array whose data starts on an `align`-byte boundary."""
    dtype = np.dtype(dtype)
    count = math.prod(shape)
    if count == 0:
        return np.empty(tuple(shape), dtype)
    raw = np.zeros(count * dtype.itemsize + align, np.uint8)
    start = (-raw.ctypes.data) % align
    return raw[start : start + count * dtype.itemsize].view(dtype).reshape(tuple(shape))


def aligned(array: np.ndarray, align: int = 64) -> np.ndarray:
    """`array` on an `align`-byte boundary, copied only when it is not there: numpy's arrays
    are 16-byte aligned, and a 64-byte vector load from a misaligned weight straddles two
    cache lines."""
    if not array.size or array.ctypes.data % align == 0:
        return array
    out = aligned_empty(array.shape, array.dtype, align)
    out[...] = array
    return out


class OutputPool:
    """The output arrays of a model's runs. Each run gets arrays the caller then owns: an
    array from an earlier run is written again only when nothing outside the pool refers
    to it or to its memory any more (no name, no view, no exported buffer: CPython's
    reference counts say so), otherwise a fresh one is allocated.

    Why: a fresh array's memory is a new mapping for anything above malloc's mmap
    threshold (128 KiB), and the first write to each of its 4 KiB pages is a page fault.
    Called in a loop, a small model paid more for those than for its kernels (a 1x1024x7x7
    depthwise layer: 0.04 ms of work and 0.09 ms of faults on a 2-core VM); onnxruntime's
    arena allocator reuses its memory the same way."""

    def __init__(self, specs: Sequence[tuple[Sequence[int], np.dtype]]):
        self._specs = [(tuple(shape), np.dtype(dtype)) for shape, dtype in specs]
        self._held: list[np.ndarray | None] = [None] * len(self._specs)
        self._lock = threading.Lock()

    def take(self) -> list[np.ndarray]:
        """Arrays for one run's outputs (thread-safe: arrays another call is still filling
        are held by that call, so they are never handed out twice)."""
        with self._lock:
            held = self._held
            for i, (shape, dtype) in enumerate(self._specs):
                if not _pool_only(held, i):
                    held[i] = aligned_empty(shape, dtype)
            return [a for a in held if a is not None]  # (every slot is filled above)


def _pool_only(held: list[np.ndarray | None], i: int) -> bool:
    """Only the pool refers to held[i] and to its memory. No local name is bound to the
    array here, so its count is the pool's list and getrefcount's argument; the memory's
    owner (aligned_empty's byte buffer, which every view of the array names as its
    base) is counted by the array's `base`, the local name and getrefcount's argument."""
    if held[i] is None or sys.getrefcount(held[i]) != 2:
        return False
    owner = cast(np.ndarray, held[i]).base
    return owner is None or sys.getrefcount(owner) == 3
