"""Benchmark: the Porcupine kernel suite on Microsoft SEAL (via tenseal.sealapi).

    python -m tessel.bench.he [--reps 11] [--budget 60] [--kernels box_blur,sobel_gx]

For each kernel of examples/he/: synthesize Tessel's program (he-synthesize, z3, with the
time budget), then run, interleaved round by round on the same encrypted inputs,
  - the hand-written baseline and Porcupine's published program at the paper's fixed
    parameters (N=8192, SEAL's default 218-bit q, t=65537);
  - Tessel's program at the same fixed parameters (the effect of the program alone);
  - Tessel's program at the parameters Tessel selects from the measured cost table.
Every run is decrypted and checked against the spec. Latency is the median server-side
time (see tessel.targets.seal.execute). Ratios are peer / Tessel (> 1: Tessel is faster).

The last line is
  RESULT he geomean_vs_baseline=<baseline / Tessel, both at the default parameters>
            geomean_vs_porcupine=<Porcupine at the default parameters / Tessel at its own>
            max_synth_s=<slowest synthesis>
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from xdsl.context import Context

from tessel.dialects.hev import kernel
from tessel.dialects.hev.reference import run_kernel
from tessel.ir.source import make_context, read_module
from tessel.passes.he.he_synthesize import HeSynthesize
from tessel.targets.seal import costs as cost_table
from tessel.targets.seal.execute import execute, make_runtime
from tessel.targets.seal.params import DEFAULT
from tessel.targets.seal.selection import depth, latency_us, op_counts, select

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "he"
ORDER = ["box_blur", "dot_product", "hamming_distance", "l2_distance", "linear_regression",
         "polynomial_regression", "sobel_gx", "sobel_gy", "roberts_cross"]


def geomean(xs: Sequence[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def _environment() -> str:
    import tenseal
    import xdsl
    import z3

    cpu = platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    table = cost_table.load()
    return (f"{cpu}, {os.cpu_count()} cores, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; "
            f"tenseal {tenseal.__version__}, z3 {z3.get_version_string()}, xdsl {getattr(xdsl, '__version__', '?')}; "
            f"cost table of {table.meta.get('date', '?')}")


def _counts(fn) -> str:
    c = op_counts(fn)
    adds = c["add"] + c["sub"] + c["add_plain"] + c["sub_plain"] + c["negate"]
    return f"{c['rotate']:3} {c['multiply']:3} {c['multiply_plain']:3} {adds:3} {c['relinearize']:3} {depth(fn):3}"


def bench_kernel(name: str, reps: int, budget: float, seed: int) -> dict:
    module = read_module(make_context(), str(EXAMPLES / f"{name}.mlir"))
    start = time.perf_counter()
    HeSynthesize(kernel=name, budget=budget, progress=False).apply(Context(), module)
    synth_s = time.perf_counter() - start
    spec = kernel.lookup(module, name)
    iface = kernel.interface(spec)
    programs = {w: kernel.lookup(module, f"{name}_{w}") for w in ("baseline", "porcupine", "synth")}
    summary = programs["synth"].attributes["hev.synthesis"].data
    optimal = bool(summary["optimal"].value.data)
    selected = select(programs["synth"], cost_table.load()).params
    variants = {
        "baseline": (programs["baseline"], DEFAULT),
        "porcupine": (programs["porcupine"], DEFAULT),
        "tessel@default": (programs["synth"], DEFAULT),
        "tessel": (programs["synth"], selected),
    }
    rng = np.random.default_rng(seed)
    inputs = [rng.integers(0, 2 if a.domain == "bits" else 256, iface.slots) for a in iface.arguments]
    want = run_kernel(module, spec, inputs, iface.plain_modulus)
    slots = list(iface.output_slots) if iface.output_slots else list(range(iface.slots))
    runtimes = {k: make_runtime(fn, params) for k, (fn, params) in variants.items()}
    times: dict[str, list[float]] = {k: [] for k in variants}
    budgets: dict[str, int] = {}
    for _ in range(reps):
        for k, (fn, params) in variants.items():
            run = execute(fn, inputs, params, reps=1, runtime=runtimes[k])
            if not np.array_equal(run.output[slots], want[slots]):
                raise SystemExit(f"bench he: {k} program of {name} decrypted wrongly at {params.describe()}")
            times[k].append(run.latencies_ms[0])
            budgets[k] = run.noise_budget
    med = {k: statistics.median(v) for k, v in times.items()}
    entry = cost_table.load().entry(DEFAULT)
    estimate = {k: latency_us(programs[k], entry) for k in ("baseline", "porcupine", "synth")}
    return {
        "estimate": estimate,
        "name": name, "slots": iface.slots, "synth_s": synth_s, "optimal": optimal,
        "programs": programs, "selected": selected, "median": med, "budgets": budgets,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tessel.bench.he", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=11, help="interleaved rounds per kernel (default 11)")
    ap.add_argument("--budget", type=float, default=60.0, help="synthesis budget per kernel, seconds (default 60)")
    ap.add_argument("--kernels", help="comma-separated subset (default: all nine)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    names = args.kernels.split(",") if args.kernels else ORDER
    print(f"# {_environment()}")
    print(f"# latency: median of {args.reps} interleaved runs, server-side ops only; default parameters = {DEFAULT.describe()}")
    print()
    header = (f"{'kernel':22} {'program':10} {'rot':>3} {'mul':>3} {'ptm':>3} {'add':>3} {'rel':>3} {'dep':>3}  "
              f"{'params':14} {'ms':>8} {'budget':>6}")
    print(header)
    print("-" * len(header))
    results = []
    for name in names:
        r = bench_kernel(name, args.reps, args.budget, args.seed)
        results.append(r)
        m, p = r["median"], r["programs"]
        rows = [("baseline", p["baseline"], DEFAULT, "baseline"), ("porcupine", p["porcupine"], DEFAULT, "porcupine"),
                ("tessel", p["synth"], DEFAULT, "tessel@default"), ("tessel", p["synth"], r["selected"], "tessel")]
        for label, fn, params, key in rows:
            print(f"{name if label == 'baseline' else '':22} {label:10} {_counts(fn)}  {params.name:14} {m[key]:8.2f} {r['budgets'][key]:6}")
        print(f"{'':22} synthesis {r['synth_s']:.1f} s ({'optimal' if r['optimal'] else 'optimality not proven'}); "
              f"speedup vs baseline {m['baseline'] / m['tessel@default']:.2f}x (same params), "
              f"{m['baseline'] / m['tessel']:.2f}x (selected); vs Porcupine {m['porcupine'] / m['tessel@default']:.2f}x (same), "
              f"{m['porcupine'] / m['tessel']:.2f}x (selected)", flush=True)
    g_base = geomean([r["median"]["baseline"] / r["median"]["tessel@default"] for r in results])
    g_base_sel = geomean([r["median"]["baseline"] / r["median"]["tessel"] for r in results])
    g_porc_same = geomean([r["median"]["porcupine"] / r["median"]["tessel@default"] for r in results])
    g_porc = geomean([r["median"]["porcupine"] / r["median"]["tessel"] for r in results])
    max_synth = max(r["synth_s"] for r in results)
    e_base = geomean([r["estimate"]["baseline"] / r["estimate"]["synth"] for r in results])
    e_porc = geomean([r["estimate"]["porcupine"] / r["estimate"]["synth"] for r in results])
    print()
    print(f"geomean speedup vs hand-written baselines: {g_base:.3f}x at the same default parameters, {g_base_sel:.3f}x with Tessel's parameters")
    print(f"geomean speedup vs Porcupine's programs:   {g_porc_same:.3f}x at the same default parameters, {g_porc:.3f}x with Tessel's parameters")
    print(f"the same at the default parameters by the cost table (sums of measured op latencies, no timing noise): "
          f"{e_base:.3f}x vs baselines, {e_porc:.3f}x vs Porcupine")
    print(f"synthesis: max {max_synth:.1f} s, optimality proven for {sum(r['optimal'] for r in results)} of {len(results)} kernels")
    print(f"RESULT he geomean_vs_baseline={g_base:.3f} geomean_vs_porcupine={g_porc:.3f} max_synth_s={max_synth:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
