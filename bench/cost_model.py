"""How well does the learned cost model rank schedules of kernels it has never seen?

    python -m tessel.bench.cost_model RECORDS.jsonl [RECORDS2.jsonl ...] [--folds 5] [--k 5]

Reads tuning logs (`tessel-tune --records`), keeps the measured candidates that carry
features, and runs a grouped k-fold over task keys: the model is fitted on the records of
the other folds' tasks and scores the held-out tasks' candidates, which it has never seen
a measurement of. Reported per fold and overall: pairwise accuracy (two schedules of one
held-out task, how often the faster one scores higher; 0.5 is chance) and top-k recall
(of a held-out task's k fastest schedules, the share among the model's k best). A random
scorer is evaluated on the same folds as the baseline. The last line is

    RESULT cost_model pairwise_accuracy=<x> top5_recall=<x> random_pairwise=<x> random_top5=<x> tasks=<n>
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from tessel.bench.common import log
from tessel.passes.sched.tuning.records import Records
from tessel.tune import cost_model
from tessel.tune.features import SIZE


class _Random(cost_model.CostModel):
    """The baseline: scores drawn at random."""

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.random.default_rng(self.seed).random(len(np.asarray(X).reshape(-1, SIZE)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("records", nargs="+")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    rows = [
        e for path in args.records for e in Records(path).entries if e.get("features") and len(e["features"]) == SIZE
    ]
    keys = sorted({e["key"] for e in rows})
    # only tasks with enough distinct successful timings to rank are scored (all train)
    scored = [k for k in keys if sum(1 for e in rows if e["key"] == k and e.get("seconds")) >= max(args.k + 1, 6)]
    if len(scored) < args.folds:
        raise SystemExit(
            f"error: {len(scored)} tasks with at least {max(args.k + 1, 6)} measured schedules; need {args.folds}"
        )
    log(
        f"{len(rows)} measured candidates of {len(keys)} tasks from {', '.join(args.records)}; "
        f"{len(scored)} tasks ranked, {args.folds}-fold by task"
    )
    rng = np.random.default_rng(args.seed)
    order = list(rng.permutation(scored))
    folds = [order[i :: args.folds] for i in range(args.folds)]
    totals: dict[str, list[float]] = {"model": [], "model_rec": [], "random": [], "random_rec": []}
    for i, held in enumerate(folds):
        held_set = set(held)
        train = [e for e in rows if e["key"] not in held_set]
        test = [e for e in rows if e["key"] in held_set]
        X = np.array([e["features"] for e in test])
        groups = [e["key"] for e in test]
        seconds = [e.get("best") or e.get("seconds") for e in test]
        model = cost_model.CostModel(args.seed)
        model.fit(
            np.array([e["features"] for e in train]),
            [e["key"] for e in train],
            [e.get("best") or e.get("seconds") for e in train],
        )
        got = cost_model.evaluate(model, X, groups, seconds, args.k)
        base = cost_model.evaluate(_Random(args.seed + i), X, groups, seconds, args.k)
        totals["model"].append(got["pairwise_accuracy"])
        totals["model_rec"].append(got["top_k_recall"])
        totals["random"].append(base["pairwise_accuracy"])
        totals["random_rec"].append(base["top_k_recall"])
        log(
            f"fold {i}: {got['tasks']} held-out tasks, {len(train)} training samples: pairwise accuracy "
            f"{got['pairwise_accuracy']:.3f} (random {base['pairwise_accuracy']:.3f}), top-{args.k} recall "
            f"{got['top_k_recall']:.3f} (random {base['top_k_recall']:.3f})"
        )
    mean = {k: float(np.nanmean(v)) for k, v in totals.items()}
    log(
        f"RESULT cost_model pairwise_accuracy={mean['model']:.3f} top{args.k}_recall={mean['model_rec']:.3f} "
        f"random_pairwise={mean['random']:.3f} random_top{args.k}={mean['random_rec']:.3f} tasks={len(scored)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
