"""HE demo: synthesize the 2x2 box blur of a 64x64 image, run it encrypted on Microsoft SEAL,
and compare it with the hand-written baseline and Porcupine's program.

    python examples/he/demo.py [-o build/demo/box_blur.mlir] [--reps 7]

Steps (each is also a command-line tool):
  1. `tessel-opt examples/he/box_blur.mlir -p he-synthesize`: z3 finds the cheapest program
     in the sketch and proves it optimal; it is re-verified exactly at all 4096 slots.
  2. Parameter selection from the measured cost table (`he-select-parameters`).
  3. `tessel-run ... --target seal`: encrypt a random image, run, decrypt, check.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

from tessel.dialects.context import make_context
from tessel.dialects.hev import costs, kernel
from tessel.dialects.hev.metrics import depth, op_counts
from tessel.dialects.hev.params import DEFAULT, by_name
from tessel.dialects.hev.reference import run_kernel
from tessel.ir.source import print_module, read_module
from tessel.pipelines import he

HERE = Path(__file__).resolve().parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", help="write the module with the synthesized program here")
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()

    module = read_module(make_context(), str(HERE / "box_blur.mlir"))
    print("== 1. synthesize @box_blur (progress on stderr)")
    he.synthesize(module, kernel="box_blur", budget=60.0, progress=True)
    he.select_parameters(module)
    synth = kernel.lookup(module, "box_blur_synth")
    print(print_module(synth))
    if args.output:
        Path(args.output).write_text(print_module(module))
        print(f"(module written to {args.output})")

    print(f"== 2. run encrypted on SEAL: a random 64x64 image, {args.reps} interleaved runs each")
    spec = kernel.lookup(module, "box_blur")
    image = np.random.default_rng(0).integers(0, 256, 4096)
    want = run_kernel(module, spec, [image], 65537)
    selected = by_name(synth.attributes["hev.params"].data)
    rows = [
        ("hand-written baseline", kernel.lookup(module, "box_blur_baseline"), DEFAULT),
        ("Porcupine's program", kernel.lookup(module, "box_blur_porcupine"), DEFAULT),
        ("Tessel", synth, DEFAULT),
        ("Tessel, its parameters", synth, selected),
    ]
    runtimes = [he.runtime_for(fn, params) for _, fn, params in rows]
    times: list[list[float]] = [[] for _ in rows]
    budgets = [0] * len(rows)
    for _ in range(args.reps):
        for i, (label, fn, params) in enumerate(rows):
            run = he.run(fn, [image], params, runtime=runtimes[i])
            if not np.array_equal(run.output, want):
                print(f"{label}: WRONG result", file=sys.stderr)
                return 1
            times[i].append(run.latencies_ms[0])
            budgets[i] = run.noise_budget
    base = statistics.median(times[0])
    print(f"{'program':24} {'rotations':>9} {'adds':>4}  {'parameters':38} {'latency':>9} {'speedup':>8} {'budget':>7}")
    for i, (label, fn, params) in enumerate(rows):
        c = op_counts(fn)
        ms = statistics.median(times[i])
        print(
            f"{label:24} {c['rotate']:9} {c['add']:4}  {params.describe():38} {ms:7.2f}ms {base / ms:7.2f}x {budgets[i]:5} b"
        )
    print(
        f"every run decrypted to the spec at all 4096 pixels; depth {depth(synth)}; "
        f"cost table of {costs.load().meta.get('date', '?')} ({costs.load().meta.get('machine', {}).get('cpu', '?')})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
