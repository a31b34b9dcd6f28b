"""The native code a model runs: where its functions are, and who may run its thread pool.

Two sources: a shared library of a saved model (`SharedLibrary`, dlopen through ctypes) and
the compiler's JIT (an adapter in `tessel.targets.cpu.export`). The executor's worker pool
is module-global state inside that code (one pool, one published job at a time), so every
plan run with more than one thread holds the code's `pool_lock`; the lock is per library
file, because dlopen of one path twice gives the same globals.
"""

from __future__ import annotations

import ctypes
import os
import threading
from typing import Protocol

from tessel.runtime.errors import TesselError


class NativeCode(Protocol):
    pool_lock: threading.Lock

    def address(self, symbol: str) -> int:
        """The address of a function of the code."""
        ...

    def stop_pool(self) -> None:
        """Join the executor's workers (before the code may be freed)."""
        ...


class SharedLibrary:
    """A saved model's `model.so`, one per file per process."""

    _open: dict[str, SharedLibrary] = {}
    _registry_lock = threading.Lock()

    def __init__(self, path: str):
        try:
            self.lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL | os.RTLD_NOW)
        except OSError as err:
            raise TesselError(f"cannot load {path}: {err}") from err
        self.path = path
        self.pool_lock = threading.Lock()
        self.users = 0

    @classmethod
    def open(cls, path: str) -> SharedLibrary:
        real = os.path.realpath(path)
        with cls._registry_lock:
            lib = cls._open.get(real)
            if lib is None:
                lib = cls._open[real] = SharedLibrary(real)
            lib.users += 1
            return lib

    def address(self, symbol: str) -> int:
        try:
            fn = self.lib[symbol]
        except AttributeError:
            raise TesselError(f"{self.path} has no function {symbol}: the saved model is damaged") from None
        addr = ctypes.cast(fn, ctypes.c_void_p).value
        assert addr is not None
        return addr

    def stop_pool(self) -> None:
        with self._registry_lock:
            self.users -= 1
            last = self.users == 0
        if last:
            with self.pool_lock:
                ctypes.CFUNCTYPE(None)(self.address("tessel.pool_stop"))()
