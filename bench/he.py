"""Benchmark: the Porcupine kernel suite and kernels of our own on Microsoft SEAL (via
tenseal.sealapi).

    python -m tessel.bench.he [--reps 11] [--budget 30] [--kernels box_blur,sobel_gx] [--seeds 3]

For each kernel of examples/he/: synthesize Tessel's program (he-synthesize, with the time
budget), then run, interleaved round by round on the same encrypted inputs, at the paper's
fixed parameters (N=8192, SEAL's default 218-bit q):
  - baseline       the hand-written baseline, as written (no modulus switching);
  - baseline+ms    the same program after Tessel's he-mod-switch pass (for reference: what
                   the pass alone gives a hand-written program);
  - porcupine      Porcupine's published program, as written (its suite only);
  - porcupine+ms   the same after he-mod-switch;
  - tessel-prog    Tessel's synthesized program without he-mod-switch (the program alone);
  - tessel         Tessel's output: the synthesized program after he-mod-switch;
and, at the parameters Tessel selects from the measured cost table (he-select-parameters,
then he-mod-switch at that set),
  - tessel@sel.
Every run is decrypted and checked against the spec; the budget left is printed. Latency
is the median server-side time (see tessel.targets.seal.execute; modulus switches are
server operations and are timed). Ratios are peer / Tessel (> 1: Tessel is faster).

Each kernel is then synthesized again at the other plaintext modulus (65537 <-> the 20-bit
prime 786433), and both programs run at their selected parameters on `--seeds` random
inputs each: every one must decrypt to the spec with noise budget left.

The last line is
  RESULT he geomean_vs_baseline=<baseline (as written) / tessel, default parameters, Porcupine's suite>
            geomean_vs_porcupine=<porcupine at the default parameters / tessel@sel>
            median_synth_s=<median synthesis time, every kernel at both moduli>
            max_synth_s=<slowest synthesis, the same>
            program_only=<baseline / tessel-prog: the synthesized program alone, Porcupine's suite>
            both_switched=<baseline+ms / tessel: the pass applied to both, Porcupine's suite>
            own_vs_baseline=<baseline / tessel over our own kernels>
            kernels=<kernels benchmarked> checked=<SEAL runs checked (kernels x moduli x seeds)>
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, ModuleOp, i64

from tessel.dialects.context import make_context
from tessel.dialects.hev import costs as cost_table
from tessel.dialects.hev import kernel
from tessel.dialects.hev.metrics import depth, op_counts
from tessel.dialects.hev.params import DEFAULT, ParamSet
from tessel.dialects.hev.reference import run_kernel
from tessel.ir.machine import cpu_model
from tessel.ir.source import read_module
from tessel.passes.he.model.estimate import latency_us
from tessel.pipelines import he

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "he"
PORCUPINE = [
    "box_blur",
    "dot_product",
    "hamming_distance",
    "l2_distance",
    "linear_regression",
    "polynomial_regression",
    "sobel_gx",
    "sobel_gy",
    "roberts_cross",
]
OURS = ["gaussian_blur", "box_blur_3x3", "sum16_padded", "window_sum8", "dot_product_t20", "box_blur_padded_t20"]
ORDER = PORCUPINE + OURS
MODULI = (65537, 786433)  # the default and a 20-bit NTT-friendly prime (3 * 2^18 + 1)
VARIANTS = ("baseline", "baseline+ms", "porcupine", "porcupine+ms", "tessel-prog", "tessel", "tessel@sel")


def geomean(xs: Sequence[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def _environment() -> str:
    import tenseal
    import xdsl
    import z3

    cpu = cpu_model()
    table = cost_table.load()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{cpu}, {os.cpu_count()} cores, load average {load}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; "
        f"tenseal {tenseal.__version__}, z3 {z3.get_version_string()}, xdsl {getattr(xdsl, '__version__', '?')}; "
        f"cost table of {table.meta.get('date', '?')}"
    )


def _counts(fn: func.FuncOp) -> str:
    c = op_counts(fn)
    adds = c["add"] + c["sub"] + c["add_plain"] + c["sub_plain"] + c["negate"]
    return f"{c['rotate']:3} {c['multiply']:3} {c['multiply_plain']:3} {adds:3} {c['relinearize']:3} {depth(fn):3}"


def _function(module: ModuleOp, name: str) -> func.FuncOp | None:
    return kernel.lookup(module, name)


def synthesize(module: ModuleOp, name: str, budget: float) -> tuple[func.FuncOp, float, bool]:
    """Tessel's program for the kernel, the synthesis time, and whether it is proven optimal."""
    start = time.perf_counter()
    he.synthesize(module, kernel=name, budget=budget)
    seconds = time.perf_counter() - start
    synth = _function(module, f"{name}_synth")
    assert synth is not None
    summary = synth.attributes["hev.synthesis"]
    assert isinstance(summary, DictionaryAttr)
    return synth, seconds, summary.data["optimal"] == BoolAttr.from_bool(True)


def check_on_seal(module: ModuleOp, program: func.FuncOp, seeds: int) -> tuple[int, int]:
    """Run a program at its selected parameters on `seeds` random inputs; (runs, least
    budget left). Exits when one decrypts wrongly or without budget."""
    spec = he.spec_of(module, program)
    iface = kernel.interface(spec)
    params = he.choose_parameters(program).params
    runtime = he.runtime_for(program, params)
    least = 10**9
    for seed in range(1, seeds + 1):
        inputs = iface.random_inputs(np.random.default_rng(seed))
        run = he.run(program, inputs, params, runtime=runtime)
        want = run_kernel(module, spec, inputs, iface.plain_modulus)
        slots = iface.all_output_slots()
        if not np.array_equal(run.output[slots], want[slots]) or run.noise_budget <= 0:
            raise SystemExit(
                f"bench he: @{program.sym_name.data} (t={iface.plain_modulus}, seed {seed}) decrypted wrongly "
                f"at {params.describe()} (budget left {run.noise_budget} bits)"
            )
        least = min(least, run.noise_budget)
    return seeds, least


def at_modulus(module: ModuleOp, t: int) -> None:
    """Every function of the module at plaintext modulus t (spec and programs alike)."""
    for fn in kernel.functions(module):
        fn.attributes[kernel.PLAIN_MODULUS] = IntegerAttr(t, i64)


def bench_kernel(name: str, reps: int, budget: float, seed: int, seeds: int) -> dict[str, Any]:
    module = read_module(make_context(), str(EXAMPLES / f"{name}.mlir"))
    synth, synth_s, optimal = synthesize(module, name, budget)
    spec = he.spec_of(module, synth)
    iface = kernel.interface(spec)
    baseline, porcupine = _function(module, f"{name}_baseline"), _function(module, f"{name}_porcupine")
    assert baseline is not None
    selected = he.choose_parameters(synth).params
    variants: dict[str, tuple[func.FuncOp, ParamSet]] = {
        "baseline": (baseline, DEFAULT),
        "baseline+ms": (he.switched(baseline, DEFAULT), DEFAULT),
    }
    if porcupine is not None:
        variants["porcupine"] = (porcupine, DEFAULT)
        variants["porcupine+ms"] = (he.switched(porcupine, DEFAULT), DEFAULT)
    variants["tessel-prog"] = (synth, DEFAULT)
    variants["tessel"] = (he.switched(synth, DEFAULT), DEFAULT)
    variants["tessel@sel"] = (he.switched(synth, selected), selected)
    rng = np.random.default_rng(seed)
    inputs = iface.random_inputs(rng, high=256)
    want = run_kernel(module, spec, inputs, iface.plain_modulus)
    slots = iface.all_output_slots()
    runtimes = {k: he.runtime_for(fn, params) for k, (fn, params) in variants.items()}
    times: dict[str, list[float]] = {k: [] for k in variants}
    budgets: dict[str, int] = {}
    for _ in range(reps):
        for k, (fn, params) in variants.items():
            run = he.run(fn, inputs, params, reps=1, runtime=runtimes[k])
            if not np.array_equal(run.output[slots], want[slots]):
                raise SystemExit(f"bench he: {k} program of {name} decrypted wrongly at {params.describe()}")
            times[k].append(run.latencies_ms[0])
            budgets[k] = min(budgets.get(k, run.noise_budget), run.noise_budget)
    table = cost_table.load()
    # correctness at both moduli, on several seeds: the program above, and one synthesized anew
    checks = [(iface.plain_modulus, *check_on_seal(module, synth, seeds))]
    other = next(t for t in MODULI if t != iface.plain_modulus)
    again = read_module(make_context(), str(EXAMPLES / f"{name}.mlir"))
    at_modulus(again, other)
    synth2, synth2_s, optimal2 = synthesize(again, name, budget)
    checks.append((other, *check_on_seal(again, synth2, seeds)))
    return {
        "name": name,
        "slots": iface.slots,
        "t": iface.plain_modulus,
        "synth_s": synth_s,
        "optimal": optimal,
        "other": (other, synth2_s, optimal2, op_counts(synth2)),
        "checks": checks,
        "variants": variants,
        "selected": selected,
        "median": {k: statistics.median(v) for k, v in times.items()},
        "estimate": {k: latency_us(fn, table.entry(params)) for k, (fn, params) in variants.items()},
        "budgets": budgets,
    }


def _ratio(m: dict[str, float], num: str, den: str) -> str:
    return f"{m[num] / m[den]:.2f}x" if num in m else "-"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tessel.bench.he", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--reps", type=int, default=11, help="interleaved rounds per kernel (default 11)")
    ap.add_argument("--budget", type=float, default=30.0, help="synthesis budget per kernel, seconds (default 30)")
    ap.add_argument("--kernels", help=f"comma-separated subset (default: all {len(ORDER)})")
    ap.add_argument("--seed", type=int, default=0, help="seed of the timed inputs")
    ap.add_argument("--seeds", type=int, default=3, help="random inputs checked per kernel and modulus (default 3)")
    args = ap.parse_args(argv)
    names = args.kernels.split(",") if args.kernels else ORDER
    unknown = [n for n in names if n not in ORDER]
    if unknown:
        raise SystemExit(f"bench he: unknown kernel {unknown[0]} (known: {', '.join(ORDER)})")
    print(f"# {_environment()}")
    print(
        f"# latency: median of {args.reps} interleaved runs, server-side ops only; default parameters = {DEFAULT.describe()}"
    )
    print()
    header = (
        f"{'kernel':22} {'program':13} {'rot':>3} {'mul':>3} {'ptm':>3} {'add':>3} {'rel':>3} {'dep':>3} {'ms':>3}  "
        f"{'params':14} {'ms':>8} {'est ms':>7} {'budget':>6}"
    )
    print(header)
    print("-" * len(header))
    results = []
    for name in names:
        r = bench_kernel(name, args.reps, args.budget, args.seed, args.seeds)
        results.append(r)
        m, e = r["median"], r["estimate"]
        for i, (key, (fn, params)) in enumerate(r["variants"].items()):
            print(
                f"{name if i == 0 else '':22} {key:13} {_counts(fn)} {op_counts(fn)['mod_switch']:3}  {params.name:14} "
                f"{m[key]:8.2f} {e[key] / 1e3:7.2f} {r['budgets'][key]:6}"
            )
        t2, s2, opt2, c2 = r["other"]
        checked = ", ".join(f"t={t}: {n} seeds OK, budget >= {b} bits" for t, n, b in r["checks"])
        print(
            f"{'':22} synthesis {r['synth_s']:.1f} s at t={r['t']} ({'optimal' if r['optimal'] else 'optimality not proven'}), "
            f"{s2:.1f} s at t={t2} ({'optimal' if opt2 else 'optimality not proven'}, {c2['rotate']} rot, "
            f"{c2['multiply']} mul, {c2['multiply_plain']} ptm); on SEAL: {checked}"
        )
        print(
            f"{'':22} vs baseline {_ratio(m, 'baseline', 'tessel')} (program alone {_ratio(m, 'baseline', 'tessel-prog')}, "
            f"both switched {_ratio(m, 'baseline+ms', 'tessel')}, selected {_ratio(m, 'baseline', 'tessel@sel')}); "
            f"vs Porcupine {_ratio(m, 'porcupine', 'tessel')} (program alone {_ratio(m, 'porcupine', 'tessel-prog')}, "
            f"both switched {_ratio(m, 'porcupine+ms', 'tessel')}, selected {_ratio(m, 'porcupine', 'tessel@sel')})",
            flush=True,
        )

    suite = [r for r in results if "porcupine" in r["median"]]
    ours = [r for r in results if r["name"] in OURS]

    def g(rs: list[dict[str, Any]], num: str, den: str, what: str = "median") -> float:
        return geomean([r[what][num] / r[what][den] for r in rs])

    synth_times = [r["synth_s"] for r in results] + [r["other"][1] for r in results]
    print()
    print(
        "geomean speedups at the default parameters (N=8192, 218-bit q) unless said, over Porcupine's suite; "
        "measured medians, then the cost table's estimate:"
    )
    rows = [
        ("tessel vs baseline as written (the goal)", "baseline", "tessel"),
        ("tessel-prog vs baseline (the program alone, no switching)", "baseline", "tessel-prog"),
        ("tessel vs baseline+ms (he-mod-switch applied to both)", "baseline+ms", "tessel"),
        ("baseline+ms vs baseline (what the pass alone gives the baseline)", "baseline", "baseline+ms"),
        ("tessel vs porcupine as written", "porcupine", "tessel"),
        ("tessel-prog vs porcupine (the program alone)", "porcupine", "tessel-prog"),
        ("tessel vs porcupine+ms (he-mod-switch applied to both)", "porcupine+ms", "tessel"),
        ("tessel@sel vs baseline (Tessel's parameters)", "baseline", "tessel@sel"),
        ("tessel@sel vs porcupine (Tessel's parameters)", "porcupine", "tessel@sel"),
    ]
    for label, num, den in rows:
        print(f"  {label:66} {g(suite, num, den):6.3f}x   (cost table {g(suite, num, den, 'estimate'):6.3f}x)")
    print(f"  {'our kernels: tessel vs baseline as written':66} {g(ours, 'baseline', 'tessel'):6.3f}x")
    median_synth, max_synth = statistics.median(synth_times), max(synth_times)
    proven = sum(r["optimal"] for r in results) + sum(r["other"][2] for r in results)
    checked = sum(n for r in results for _, n, _ in r["checks"])
    print(
        f"synthesis ({len(synth_times)} runs: {len(results)} kernels at both moduli): median {median_synth:.1f} s, "
        f"max {max_synth:.1f} s, optimality proven for {proven} of {len(synth_times)}; "
        f"{checked} SEAL runs at the selected parameters decrypted correctly"
    )
    print(
        f"RESULT he geomean_vs_baseline={g(suite, 'baseline', 'tessel'):.3f} "
        f"geomean_vs_porcupine={g(suite, 'porcupine', 'tessel@sel'):.3f} "
        f"median_synth_s={median_synth:.1f} max_synth_s={max_synth:.1f} "
        f"program_only={g(suite, 'baseline', 'tessel-prog'):.3f} both_switched={g(suite, 'baseline+ms', 'tessel'):.3f} "
        f"own_vs_baseline={g(ours, 'baseline', 'tessel'):.3f} kernels={len(results)} checked={checked}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
