"""Does the cost model pay? Best-so-far against trials, model-guided search vs random search.

    python -m tessel.bench.tune_convergence [--trials 64] [--out build/bench/tune_convergence.png]

For ResNet-18's C2, C6, C9, C12 and a 1024^3 matmul, the workload's main stage (the one
with the most work) is tuned twice from empty records with the same trial budget and
seed: once with the evolutionary search on the learned cost model, once with uniform
random sampling of the same space. For each run: the best GFLOP/s after every trial, and
the trials needed to reach 95% of the best either run found. The plot has one panel per
workload. The last line is

    RESULT tune_convergence random_trials_over_model_trials=<x> ...

(geometric mean over the workloads; a run that never reaches 95% counts as trials + 1).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile

from tessel.bench.common import environment, log, wait_for_quiet
from tessel.bench.cpu_ops import CONV, conv_model, matmul_model

WORKLOADS = ["C2", "C6", "C9", "C12", "matmul1024"]


def main_task(model):
    from tessel.frontends.onnx import import_model
    from tessel.pipelines.tensor import lower
    from tessel.tune.task import extract_tasks

    result = import_model(model, source="workload.onnx")
    lower(result.module, result.weights, stop_after="tg-to-kernel")
    return max(extract_tasks(result.module), key=lambda t: t.flops)


def curve(task, strategy: str, trials: int, threads: int, seed: int) -> list[float]:
    """Best seconds after each trial (inf until one succeeds)."""
    from tessel.passes.sched.tuning.records import Records
    from tessel.tune.tuner import Options, Tuner

    with tempfile.TemporaryDirectory() as d:
        records = Records(os.path.join(d, "r.jsonl"))
        options = Options(trials=trials, strategy=strategy, threads=threads, seed=seed, batch=8)
        Tuner([task], records, options, log=lambda s: log("    " + s)).run()
        best, out = math.inf, []
        for e in records.entries:
            t = e.get("best") or e.get("seconds")
            if t and not e["knobs"].get("default"):
                best = min(best, t)
            out.append(best)
    return out[:trials]


def trials_to(curve_: list[float], target: float) -> int:
    return next((i + 1 for i, t in enumerate(curve_) if t <= target), len(curve_) + 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", default="")
    p.add_argument("--out", default="build/bench/tune_convergence.png")
    args = p.parse_args(argv)
    log(f"environment: {environment(args.threads)}")
    names = [w for w in WORKLOADS if not args.only or w in args.only.split(",")]
    results = {}
    for name in names:
        model, flops = matmul_model(1024) if name == "matmul1024" else conv_model(*CONV[name])
        task = main_task(model)
        log(f"{name}: tuning {task.describe()}")
        wait_for_quiet()
        runs = {s: curve(task, s, args.trials, args.threads, args.seed) for s in ("evolve", "random")}
        best = min(min(c) for c in runs.values())
        target = best / 0.95
        needed = {s: trials_to(c, target) for s, c in runs.items()}
        results[name] = (task.flops, runs, needed, best)
        log(
            f"{name}: best {task.flops / best / 1e9:.1f} GFLOP/s; trials to 95% of it: model {needed['evolve']}, random {needed['random']}"
        )
    _plot(results, args.out, args.trials)
    ratios = [r[2]["random"] / r[2]["evolve"] for r in results.values()]
    geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else float("nan")
    log("")
    log(
        "| workload | best GFLOP/s | model trials to 95% | random trials to 95% | model best after 16 / all | random best after 16 / all |"
    )
    log("|---|---:|---:|---:|---:|---:|")
    for name, (flops, runs, needed, best) in results.items():
        m, r = runs["evolve"], runs["random"]

        def g(c: list[float], i: int, flops: float = flops) -> float:
            """GFLOP/s of the best time after i trials."""
            return flops / c[min(i, len(c)) - 1] / 1e9 if c and math.isfinite(c[min(i, len(c)) - 1]) else 0.0

        log(
            f"| {name} | {flops / best / 1e9:.1f} | {needed['evolve']} | {needed['random']} | {g(m, 16):.1f} / {g(m, len(m)):.1f} | {g(r, 16):.1f} / {g(r, len(r)):.1f} |"
        )
    extra = " ".join(f"{n}={r[2]['random'] / r[2]['evolve']:.2f}" for n, r in results.items())
    log(f"RESULT tune_convergence random_trials_over_model_trials={geomean:.3f} {extra} trials={args.trials}")
    return 0


def _plot(results, path: str, trials: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(4 * len(results), 3.2), squeeze=False)
    for ax, (name, (flops, runs, _needed, best)) in zip(axes[0], results.items()):
        for strategy, label in (("evolve", "cost model + evolution"), ("random", "random")):
            ys = [flops / t / 1e9 if math.isfinite(t) else 0.0 for t in runs[strategy]]
            ax.plot(range(1, len(ys) + 1), ys, label=label)
        ax.axhline(0.95 * flops / best / 1e9, color="grey", linestyle=":", linewidth=1)
        ax.set_title(name)
        ax.set_xlabel("trials")
        ax.set_xlim(1, trials)
    axes[0][0].set_ylabel("best GFLOP/s so far")
    axes[0][-1].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=120)
    log(f"plot: {path}")


if __name__ == "__main__":
    sys.exit(main())
