"""The machine's float32 FMA peak, for reading the other CPU numbers against.

    python -m tessel.bench.cpu_peak

A JIT-compiled loop of 12 independent 512-bit FMA chains (no memory traffic), on one
thread and on every core at once. The last line is

    RESULT cpu_peak gflops_1core=<x> gflops_all=<x> cores=<n>
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from tessel.bench.common import log
from tessel.targets.cpu import cpu_target
from tessel.targets.cpu.jit import CompiledModule

CHAINS = 12  # independent accumulators: enough to cover the FMA latency


def _module() -> str:
    lines = [
        "define float @peak(i64 %n) #0 {",
        "entry:",
        "  br label %loop",
        "loop:",
        "  %i = phi i64 [0, %entry], [%i1, %loop]",
    ]
    for a in range(CHAINS):
        lines.append(f"  %a{a} = phi <16 x float> [splat (float {1.0 + a * 0.125}), %entry], [%b{a}, %loop]")
    for a in range(CHAINS):
        lines.append(
            f"  %b{a} = call <16 x float> @llvm.fma.v16f32(<16 x float> %a{a}, <16 x float> splat (float 0.5), <16 x float> splat (float 0.25))"
        )
    lines += ["  %i1 = add i64 %i, 1", "  %c = icmp ult i64 %i1, %n", "  br i1 %c, label %loop, label %done", "done:"]
    acc = "%b0"
    for a in range(1, CHAINS):
        lines.append(f"  %s{a} = fadd <16 x float> {acc}, %b{a}")
        acc = f"%s{a}"
    lines += [
        f"  %r = extractelement <16 x float> {acc}, i64 0",
        "  ret float %r",
        "}",
        "declare <16 x float> @llvm.fma.v16f32(<16 x float>, <16 x float>, <16 x float>)",
        'attributes #0 = { "prefer-vector-width"="512" "min-legal-vector-width"="512" }',
    ]
    return "\n".join(lines)


def main() -> int:
    module = CompiledModule(_module(), use_cache=False)
    peak = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_int64)(module.address("peak"))
    n = 30_000_000
    flops = n * CHAINS * 16 * 2
    peak(1000)
    best_one = max(_rate(lambda: peak(n), flops) for _ in range(3))
    cores = os.cpu_count() or 1
    with ThreadPoolExecutor(cores) as pool:  # ctypes releases the GIL

        def all_cores() -> None:
            list(pool.map(lambda _: peak(n), range(cores)))

        best_all = max(_rate(all_cores, flops * cores) for _ in range(3))
    log(f"host: {cpu_target.current().description}")
    log(
        f"one core: {best_one:.1f} GFLOP/s ({best_one / 32:.2f} G 512-bit FMA/s); {cores} cores: {best_all:.1f} GFLOP/s"
    )
    log(f"RESULT cpu_peak gflops_1core={best_one:.1f} gflops_all={best_all:.1f} cores={cores}")
    return 0


def _rate(fn, flops: int) -> float:
    start = time.perf_counter()
    fn()
    return flops / (time.perf_counter() - start) / 1e9


if __name__ == "__main__":
    sys.exit(main())
