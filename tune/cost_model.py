"""The learned cost model: gradient-boosted trees ranking schedules of one stage.

TVM's model predicts relative order rather than time, with XGBoost's rank objective.
scikit-learn has no rank loss, so the target is made rank-aware instead: each measured
candidate's throughput divided by the best of its own task (1 is the best schedule found
for that stage, 0.1 one ten times slower), which compares schedules across stages of very
different sizes; failed candidates get 0. Samples are weighted so that every task counts
alike however many candidates it has. The score of an unmeasured schedule is only used to
order candidates of the same task.

`evaluate` gives what the issue asks of a ranking model on held-out tasks: pairwise
accuracy (for two schedules of one task, how often the faster one scores higher) and
top-k recall (how many of the true k best are among the model's k best).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

from tessel.tune.features import SIZE


class CostModel:
    def __init__(self, seed: int = 0):
        self.seed = seed
        self.model: HistGradientBoostingRegressor | None = None
        self.samples = 0

    @property
    def trained(self) -> bool:
        return self.model is not None

    def fit(self, X: np.ndarray, groups: Sequence[str], seconds: Sequence[float | None]) -> None:
        """X: features per candidate; groups: task key; seconds: measured time (None: failed)."""
        X = np.asarray(X, dtype=np.float64).reshape(-1, SIZE)
        y, w = targets(groups, seconds)
        if len(y) < 8 or len(set(groups)) < 1:
            return
        model = HistGradientBoostingRegressor(
            max_iter=200, learning_rate=0.1, max_leaf_nodes=31, l2_regularization=1.0, random_state=self.seed
        )
        model.fit(X, y, sample_weight=w)
        self.model = model
        self.samples = len(y)

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64).reshape(-1, SIZE)
        if self.model is None:
            return np.zeros(len(X))
        return self.model.predict(X)


def targets(groups: Sequence[str], seconds: Sequence[float | None]) -> tuple[np.ndarray, np.ndarray]:
    best: dict[str, float] = {}
    for g, s in zip(groups, seconds):
        if s:
            best[g] = min(best.get(g, np.inf), s)
    counts: dict[str, int] = {}
    for g in groups:
        counts[g] = counts.get(g, 0) + 1
    y = np.array([(best[g] / s) if s and g in best else 0.0 for g, s in zip(groups, seconds)])
    w = np.array([1.0 / counts[g] for g in groups])
    return y, w * len(groups) / max(len(counts), 1)  # each task weighs the same, mean weight 1


def pairwise_accuracy(scores: Sequence[float], seconds: Sequence[float]) -> float:
    """Over pairs with different times: how often the faster one scores higher."""
    good = total = 0
    for (s1, t1), (s2, t2) in itertools.combinations(zip(scores, seconds), 2):
        if t1 == t2:
            continue
        total += 1
        good += (s1 > s2) == (t1 < t2)
    return good / total if total else float("nan")


def top_k_recall(scores: Sequence[float], seconds: Sequence[float], k: int) -> float:
    """Of the k fastest, the share among the k highest scores."""
    k = min(k, len(seconds))
    if k == 0:
        return float("nan")
    fastest = set(np.argsort(seconds)[:k])
    predicted = set(np.argsort(-np.asarray(scores))[:k])
    return len(fastest & predicted) / k


def evaluate(
    model: CostModel, X: np.ndarray, groups: Sequence[str], seconds: Sequence[float | None], k: int = 5
) -> dict[str, float]:
    """Per-task pairwise accuracy and top-k recall, averaged over the tasks given (seconds:
    None or 0 where the candidate failed; those are left out)."""
    scores = model.predict(X)
    measured = {i: t for i, t in enumerate(seconds) if t}
    acc, rec = [], []
    for g in sorted(set(groups)):
        idx = [i for i, x in enumerate(groups) if x == g and i in measured]
        if len(idx) < 3:
            continue
        acc.append(pairwise_accuracy([scores[i] for i in idx], [measured[i] for i in idx]))
        rec.append(top_k_recall([scores[i] for i in idx], [measured[i] for i in idx], k))
    return {
        "pairwise_accuracy": float(np.nanmean(acc)) if acc else float("nan"),
        "top_k_recall": float(np.nanmean(rec)) if rec else float("nan"),
        "tasks": len(acc),
    }
