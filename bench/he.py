"""Benchmark: the Porcupine kernel suite on Microsoft SEAL (via tenseal.sealapi).

    python -m tessel.bench.he [--reps 11] [--budget 60] [--kernels box_blur,sobel_gx]

For each kernel of examples/he/: synthesize Tessel's program (he-synthesize, z3, with the
time budget), then run, interleaved round by round on the same encrypted inputs, at the
paper's fixed parameters (N=8192, SEAL's default 218-bit q, t=65537):
  - baseline       the hand-written baseline, as written (no modulus switching);
  - baseline+ms    the same program after Tessel's he-mod-switch pass (for reference: what
                   the pass alone gives a hand-written program);
  - porcupine      Porcupine's published program, as written;
  - porcupine+ms   the same after he-mod-switch;
  - tessel-prog    Tessel's synthesized program without he-mod-switch (the program alone);
  - tessel         Tessel's output: the synthesized program after he-mod-switch;
and, at the parameters Tessel selects from the measured cost table (he-select-parameters,
then he-mod-switch at that set),
  - tessel@sel.
Every run is decrypted and checked against the spec; the budget left is printed. Latency
is the median server-side time (see tessel.targets.seal.execute; modulus switches are
server operations and are timed). Ratios are peer / Tessel (> 1: Tessel is faster).

The last line is
  RESULT he geomean_vs_baseline=<baseline (as written) / tessel, both at the default parameters>
            geomean_vs_porcupine=<porcupine at the default parameters / tessel@sel>
            max_synth_s=<slowest synthesis>
            program_only=<baseline / tessel-prog: the synthesized program alone>
            both_switched=<baseline+ms / tessel: the pass applied to both>
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
from xdsl.dialects import func
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, ModuleOp

from tessel.dialects.hev import costs as cost_table
from tessel.dialects.hev import kernel
from tessel.dialects.hev.metrics import depth, op_counts
from tessel.dialects.hev.params import DEFAULT
from tessel.dialects.hev.reference import run_kernel
from tessel.ir.source import make_context, read_module
from tessel.passes.he.model.estimate import latency_us
from tessel.pipelines import he

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "he"
ORDER = [
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
    return (
        f"{cpu}, {os.cpu_count()} cores, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; "
        f"tenseal {tenseal.__version__}, z3 {z3.get_version_string()}, xdsl {getattr(xdsl, '__version__', '?')}; "
        f"cost table of {table.meta.get('date', '?')}"
    )


def _counts(fn) -> str:
    c = op_counts(fn)
    adds = c["add"] + c["sub"] + c["add_plain"] + c["sub_plain"] + c["negate"]
    return f"{c['rotate']:3} {c['multiply']:3} {c['multiply_plain']:3} {adds:3} {c['relinearize']:3} {depth(fn):3}"


VARIANTS = ("baseline", "baseline+ms", "porcupine", "porcupine+ms", "tessel-prog", "tessel", "tessel@sel")


switched = he.switched


def _function(module: ModuleOp, name: str) -> func.FuncOp:
    fn = kernel.lookup(module, name)
    if fn is None:
        raise SystemExit(f"bench he: no function @{name} in the example")
    return fn


def bench_kernel(name: str, reps: int, budget: float, seed: int) -> dict:
    module = read_module(make_context(), str(EXAMPLES / f"{name}.mlir"))
    start = time.perf_counter()
    he.synthesize(module, kernel=name, budget=budget)
    synth_s = time.perf_counter() - start
    spec = _function(module, name)
    iface = kernel.interface(spec)
    programs = {w: _function(module, f"{name}_{w}") for w in ("baseline", "porcupine", "synth")}
    summary = programs["synth"].attributes["hev.synthesis"]
    assert isinstance(summary, DictionaryAttr)
    optimal = summary.data["optimal"] == BoolAttr.from_bool(True)
    selected = he.choose_parameters(programs["synth"]).params
    variants = {
        "baseline": (programs["baseline"], DEFAULT),
        "baseline+ms": (switched(programs["baseline"], DEFAULT), DEFAULT),
        "porcupine": (programs["porcupine"], DEFAULT),
        "porcupine+ms": (switched(programs["porcupine"], DEFAULT), DEFAULT),
        "tessel-prog": (programs["synth"], DEFAULT),
        "tessel": (switched(programs["synth"], DEFAULT), DEFAULT),
        "tessel@sel": (switched(programs["synth"], selected), selected),
    }
    rng = np.random.default_rng(seed)
    inputs = [rng.integers(0, 2 if a.domain == "bits" else 256, iface.slots) for a in iface.arguments]
    want = run_kernel(module, spec, inputs, iface.plain_modulus)
    slots = list(iface.output_slots) if iface.output_slots else list(range(iface.slots))
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
    med = {k: statistics.median(v) for k, v in times.items()}
    table = cost_table.load()
    estimate = {k: latency_us(fn, table.entry(params)) for k, (fn, params) in variants.items()}
    return {
        "estimate": estimate,
        "name": name,
        "slots": iface.slots,
        "synth_s": synth_s,
        "optimal": optimal,
        "variants": variants,
        "selected": selected,
        "median": med,
        "budgets": budgets,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tessel.bench.he", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--reps", type=int, default=11, help="interleaved rounds per kernel (default 11)")
    ap.add_argument("--budget", type=float, default=60.0, help="synthesis budget per kernel, seconds (default 60)")
    ap.add_argument("--kernels", help="comma-separated subset (default: all nine)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    names = args.kernels.split(",") if args.kernels else ORDER
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
        r = bench_kernel(name, args.reps, args.budget, args.seed)
        results.append(r)
        m, e = r["median"], r["estimate"]
        for i, (key, (fn, params)) in enumerate(r["variants"].items()):
            print(
                f"{name if i == 0 else '':22} {key:13} {_counts(fn)} {op_counts(fn)['mod_switch']:3}  {params.name:14} "
                f"{m[key]:8.2f} {e[key] / 1e3:7.2f} {r['budgets'][key]:6}"
            )
        print(
            f"{'':22} synthesis {r['synth_s']:.1f} s ({'optimal' if r['optimal'] else 'optimality not proven'}); "
            f"vs baseline {m['baseline'] / m['tessel']:.2f}x (program alone {m['baseline'] / m['tessel-prog']:.2f}x, "
            f"both switched {m['baseline+ms'] / m['tessel']:.2f}x, selected {m['baseline'] / m['tessel@sel']:.2f}x); "
            f"vs Porcupine {m['porcupine'] / m['tessel']:.2f}x (program alone {m['porcupine'] / m['tessel-prog']:.2f}x, "
            f"both switched {m['porcupine+ms'] / m['tessel']:.2f}x, selected {m['porcupine'] / m['tessel@sel']:.2f}x)",
            flush=True,
        )

    def g(num: str, den: str, what: str = "median") -> float:
        return geomean([r[what][num] / r[what][den] for r in results])

    max_synth = max(r["synth_s"] for r in results)
    print()
    print(
        "geomean speedups at the default parameters (N=8192, 218-bit q) unless said; measured medians, then the cost table's estimate:"
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
        print(f"  {label:66} {g(num, den):6.3f}x   (cost table {g(num, den, 'estimate'):6.3f}x)")
    print(
        f"synthesis: max {max_synth:.1f} s, optimality proven for {sum(r['optimal'] for r in results)} of {len(results)} kernels"
    )
    print(
        f"RESULT he geomean_vs_baseline={g('baseline', 'tessel'):.3f} geomean_vs_porcupine={g('porcupine', 'tessel@sel'):.3f} "
        f"max_synth_s={max_synth:.1f} program_only={g('baseline', 'tessel-prog'):.3f} both_switched={g('baseline+ms', 'tessel'):.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
