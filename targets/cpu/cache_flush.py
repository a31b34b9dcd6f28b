"""Evict buffers from the CPU caches, for timing a kernel as a model runs it.

A stage timed in a loop on the same buffers finds its weights and inputs in L1/L2 on
every run after the first; inside a model, the stages before it have evicted them. Timed
warm, tessel-tune's candidates that won by keeping a working set cached did not win in the
model (ResNet-18: 1.21x over the default schedules stage by stage, nothing end to end).
TVM's CPU measurement flushes the inputs before each run for the same reason
(`enable_cpu_cache_flush`); this is that: clflush over every cache line of a buffer, then
a fence, as a small JIT-compiled function (x86; elsewhere nothing is flushed).
"""

from __future__ import annotations

import ctypes
import platform
from collections.abc import Callable
from functools import cache

LINE = 64  # bytes per cache line on every x86-64 CPU

_IR = f"""
declare void @llvm.x86.sse2.clflush(ptr)
declare void @llvm.x86.sse2.mfence()

define void @tessel.flush(ptr %base, i64 %bytes) {{
entry:
  %any = icmp sgt i64 %bytes, 0
  br i1 %any, label %loop, label %done
loop:
  %offset = phi i64 [0, %entry], [%next, %loop]
  %line = getelementptr i8, ptr %base, i64 %offset
  call void @llvm.x86.sse2.clflush(ptr %line)
  %next = add i64 %offset, {LINE}
  %more = icmp slt i64 %next, %bytes
  br i1 %more, label %loop, label %done
done:
  call void @llvm.x86.sse2.mfence()
  ret void
}}
"""


@cache
def flush_function() -> Callable[[int, int], None] | None:
    """flush(address, bytes), or None where the CPU has no clflush we can call."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    from tessel.targets.cpu.jit import CompiledModule

    module = CompiledModule(_IR, use_cache=False)
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)(module.address("tessel.flush"))
    _KEEP.append(module)  # the code lives as long as the process
    return fn


_KEEP: list[object] = []
