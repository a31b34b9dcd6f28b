"""The launch plan run by native code (see `tessel.targets.cpu.native_plan` for the IR of
the executor): descriptors and argument arrays in numpy memory, one ctypes call per run.

It sits in the runtime package because a saved model runs it without the compiler.
"""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Sequence

import numpy as np

WORDS = 8  # int64 words per launch descriptor (a cache line, so counters do not share one)
TIMED, ELAPSED = 5, 6  # descriptor words: nonzero: time the launch; its last run's nanoseconds


class NativePlan:
    """Descriptors and argument arrays for a list of launches, run with one native call.

    `launches` are (dispatch address, argument slots, extent); a slot is an address, or
    ("in", i) / ("out", i), patched per run."""

    def __init__(
        self,
        run_plan: int,
        pool_stop: int,
        launches: Sequence[tuple[int, Sequence[int | tuple[str, int]], int]],
        threads: int,
    ):
        self.threads = threads
        self.desc = np.zeros(max(1, len(launches)) * WORDS + 8, np.int64)  # +8: align to 64 bytes
        shift = (-self.desc.ctypes.data % 64) // 8
        self.table = self.desc[shift : shift + len(launches) * WORDS].reshape(len(launches), WORDS)
        self.args: list[np.ndarray] = []
        self.patches: list[tuple[np.ndarray, int, str, int]] = []
        for row, (fn, slots, extent) in enumerate(launches):
            arr = np.zeros(max(1, len(slots)), np.int64)
            for j, slot in enumerate(slots):
                if isinstance(slot, tuple):
                    self.patches.append((arr, j, slot[0], slot[1]))
                else:
                    arr[j] = slot
            self.args.append(arr)
            extent = max(extent, 1)
            self.table[row, :4] = [fn, arr.ctypes.data, extent, max(1, -(-extent // (threads * 4)))]
        # per patched slot, the array whose address it holds (a weak reference): see `patch`
        self._seen: list[weakref.ref[np.ndarray] | None] = [None] * len(self.patches)
        self._table_address = self.table.ctypes.data if len(launches) else 0
        proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32)
        self._run = proto(run_plan)
        self._stop = ctypes.CFUNCTYPE(None)(pool_stop)

    def patch(self, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray]) -> None:
        """Point the input and output slots at these arrays' memory.

        Reading an array's address (`.ctypes.data`) costs about a microsecond, a tenth of a
        small model's run, and a loop usually passes the same arrays again (the output
        pool's, an input it feeds every time). A slot whose array is the one it saw last
        (alive: a weak reference, which holds no memory) keeps its address. numpy moves an
        array's memory only in `resize`, and refuses that for an array with a weak
        reference, refcheck or not."""
        seen = self._seen
        for k, (arr, j, kind, i) in enumerate(self.patches):
            a = (ins if kind == "in" else outs)[i]
            ref = seen[k]
            if ref is not None and ref() is a:
                continue
            arr[j] = a.ctypes.data
            seen[k] = weakref.ref(a)

    def run(self, first: int = 0, count: int | None = None) -> None:
        count = len(self.table) - first if count is None else count
        self._run(self._table_address + first * WORDS * 8 if count else 0, count, self.threads)

    def time_launches(self, rows: Sequence[int] | slice, on: bool = True) -> None:
        """Have the native loop time these launches on every run (or stop: `on` False)."""
        self.table[rows, TIMED] = int(on)
        self.table[rows, ELAPSED] = 0

    def elapsed(self) -> np.ndarray:
        """Each launch's seconds in the last run that timed it (0 where none has)."""
        return self.table[:, ELAPSED] * 1e-9

    def stop(self) -> None:
        """Join the module's workers (they run the module's code: do this before freeing it)."""
        self._stop()
