"""The machine's float32 FMA peak, for reading the other CPU numbers against.

    python -m tessel.bench.cpu_peak [--threads 2]

A JIT-compiled loop of 12 independent 512-bit FMA chains (no memory traffic), on one
thread, on `--threads` cores at once (the thread count the other benchmarks run at, whose
fraction of peak is read against this: bench.cpu_ops measures it in its own run) and on
every core at once. The last line is

    RESULT cpu_peak gflops_1core=<x> gflops_threads=<x> threads=<n> gflops_all=<x> cores=<n>
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache

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


def fma_peak(threads: int, rounds: int = 3) -> float:
    """GFLOP/s of `threads` copies of the FMA loop running at once (the best of `rounds`):
    the peak a benchmark at that thread count can reach, with whatever clock the cores
    hold while they all run 512-bit FMAs (twice the one-core figure only where the clock
    does not drop)."""
    _, peak = _peak_function()
    n = 30_000_000
    flops = n * CHAINS * 16 * 2
    peak(1000)
    if threads == 1:
        return max(_rate(lambda: peak(n), flops) for _ in range(rounds))
    with ThreadPoolExecutor(threads) as pool:  # ctypes releases the GIL

        def together() -> None:
            list(pool.map(lambda _: peak(n), range(threads)))

        return max(_rate(together, flops * threads) for _ in range(rounds))


@cache
def _peak_function() -> tuple[CompiledModule, Callable[[int], float]]:
    """The FMA loop, with the module that holds its code (alive as long as the function)."""
    module = CompiledModule(_module(), use_cache=False)
    function = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_int64)(module.address("peak"))
    return module, function


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--threads", type=int, default=2, help="also measure this many cores at once (the benchmarks' default: 2)"
    )
    args = p.parse_args(argv)
    cores = os.cpu_count() or 1
    one = fma_peak(1)
    at = fma_peak(min(args.threads, cores))
    every = fma_peak(cores)
    log(f"host: {cpu_target.current().details}")
    log(
        f"one core: {one:.1f} GFLOP/s ({one / 32:.2f} G 512-bit FMA/s); {min(args.threads, cores)} at once: "
        f"{at:.1f} GFLOP/s; {cores} cores: {every:.1f} GFLOP/s"
    )
    log(
        f"RESULT cpu_peak gflops_1core={one:.1f} gflops_threads={at:.1f} threads={min(args.threads, cores)} "
        f"gflops_all={every:.1f} cores={cores}"
    )
    return 0


def _rate(fn, flops: int) -> float:
    start = time.perf_counter()
    fn()
    return flops / (time.perf_counter() - start) / 1e9


if __name__ == "__main__":
    sys.exit(main())
