"""The launch plan run by native code: one ctypes call per inference, threads from libgomp.

Calling each stage from Python costs a few microseconds, and handing a chunk to a Python
worker thread about forty (a GIL round trip), which is most of the time of a small model
and makes a split range only as fast as its slowest thread on a shared machine. So the
module carries its own executor, in LLVM IR:

- `@<stage>.dispatch(ptr args, i64 lo, i64 hi)` loads a stage's buffer pointers from an
  array and calls it on [lo, hi);
- `@tessel.run_plan(ptr plan, i64 count, i32 threads)` walks an array of launch
  descriptors. A launch with more than one chunk runs under `GOMP_parallel`, where every
  thread takes chunks from an atomic counter until none are left (dynamic scheduling: a
  descheduled thread delays nobody), and libgomp's threads spin briefly between launches;
- `@tessel.copy` is the dispatcher of memref.copy (a memcpy).

A descriptor is eight int64 words (a cache line, so counters do not share one):
dispatch address, argument array address, extent, chunk, counter. Inputs and outputs are
the only argument slots that change between runs; Python patches them and makes one call.
libgomp comes from the system or from the copy scikit-learn bundles; the loader stores
GOMP_parallel's address in the module (without libgomp, and with one thread, the plan runs
serially).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from functools import cache

import numpy as np

WORDS = 8  # int64 words per launch descriptor
COPY = "tessel.copy"


def dispatcher(stage: str, arity: int) -> str:
    lines = [f"define void @{stage}.dispatch(ptr %args, i64 %lo, i64 %hi) {{"]
    for i in range(arity):
        lines.append(f"  %p{i} = getelementptr ptr, ptr %args, i64 {i}")
        lines.append(f"  %a{i} = load ptr, ptr %p{i}, align 8")
    operands = ", ".join([*(f"ptr %a{i}" for i in range(arity)), "i64 %lo", "i64 %hi"])
    lines += [f"  call void @{stage}({operands})", "  ret void", "}"]
    return "\n".join(lines)


RUNTIME = """
; GOMP_parallel's address, stored by the loader (null: no libgomp, launches run serially).
; Not an external symbol: MCJIT would resolve a missing one to null and leave the
; module's other relocations unapplied.
@tessel.gomp_parallel = global ptr null
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @tessel.copy(ptr %args, i64 %lo, i64 %hi) {
  %src = load ptr, ptr %args, align 8
  %pd = getelementptr ptr, ptr %args, i64 1
  %dst = load ptr, ptr %pd, align 8
  %pn = getelementptr ptr, ptr %args, i64 2
  %n = load i64, ptr %pn, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  ret void
}

define internal void @tessel.task(ptr %desc) {
entry:
  %fn = load ptr, ptr %desc, align 8
  %pa = getelementptr i64, ptr %desc, i64 1
  %args = load ptr, ptr %pa, align 8
  %pe = getelementptr i64, ptr %desc, i64 2
  %extent = load i64, ptr %pe, align 8
  %pc = getelementptr i64, ptr %desc, i64 3
  %chunk = load i64, ptr %pc, align 8
  %counter = getelementptr i64, ptr %desc, i64 4
  br label %grab
grab:
  %lo = atomicrmw add ptr %counter, i64 %chunk monotonic, align 8
  %done = icmp sge i64 %lo, %extent
  br i1 %done, label %exit, label %work
work:
  %end = add i64 %lo, %chunk
  %short = icmp slt i64 %end, %extent
  %hi = select i1 %short, i64 %end, i64 %extent
  call void %fn(ptr %args, i64 %lo, i64 %hi)
  br label %grab
exit:
  ret void
}

define void @tessel.run_plan(ptr %plan, i64 %count, i32 %threads) {
entry:
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %exit, label %launch
launch:
  %i = phi i64 [0, %entry], [%next, %latch]
  %word = mul i64 %i, 8
  %desc = getelementptr i64, ptr %plan, i64 %word
  %fn = load ptr, ptr %desc, align 8
  %pa = getelementptr i64, ptr %desc, i64 1
  %args = load ptr, ptr %pa, align 8
  %pe = getelementptr i64, ptr %desc, i64 2
  %extent = load i64, ptr %pe, align 8
  %pc = getelementptr i64, ptr %desc, i64 3
  %chunk = load i64, ptr %pc, align 8
  %one_thread = icmp sle i32 %threads, 1
  %one_chunk = icmp sle i64 %extent, %chunk
  %gomp = load ptr, ptr @tessel.gomp_parallel, align 8
  %no_gomp = icmp eq ptr %gomp, null
  %serial0 = or i1 %one_thread, %one_chunk
  %serial = or i1 %serial0, %no_gomp
  br i1 %serial, label %inline, label %parallel
inline:
  call void %fn(ptr %args, i64 0, i64 %extent)
  br label %latch
parallel:
  %counter = getelementptr i64, ptr %desc, i64 4
  store atomic i64 0, ptr %counter monotonic, align 8
  call void %gomp(ptr @tessel.task, ptr %desc, i32 %threads, i32 0)
  br label %latch
latch:
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, %count
  br i1 %more, label %launch, label %exit
exit:
  ret void
}
"""


@cache
def gomp_parallel() -> int:
    """The address of libgomp's GOMP_parallel (0 when no libgomp can be loaded): from the
    system, else from the copy scikit-learn bundles."""
    candidates = []
    found = ctypes.util.find_library("gomp")
    if found:
        candidates.append(found)
    try:
        import sklearn

        libs = os.path.join(os.path.dirname(os.path.dirname(sklearn.__file__)), "scikit_learn.libs")
        candidates += sorted(glob.glob(os.path.join(libs, "libgomp*.so*")))
    except ImportError:
        pass
    for path in candidates:
        try:
            library = ctypes.CDLL(path)
            return ctypes.cast(library.GOMP_parallel, ctypes.c_void_p).value or 0
        except (OSError, AttributeError):
            continue
    return 0


class NativePlan:
    """Descriptors and argument arrays for a list of launches, run with one native call.

    `launches` are (dispatch address, argument slots, extent); a slot is an address, or
    ("in", i) / ("out", i), patched per run."""

    def __init__(self, run_plan: int, gomp_slot: int, launches: list[tuple[int, list, int]], threads: int):
        ctypes.c_void_p.from_address(gomp_slot).value = gomp_parallel() or None
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
        proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32)
        self._run = proto(run_plan)

    def patch(self, ins, outs) -> None:
        for arr, j, kind, i in self.patches:
            arr[j] = (ins if kind == "in" else outs)[i].ctypes.data

    def run(self, first: int = 0, count: int | None = None) -> None:
        count = len(self.table) - first if count is None else count
        self._run(self.table[first:].ctypes.data if count else 0, count, self.threads)
