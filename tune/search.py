"""Which candidates of a task to measure next.

- `random`: points drawn uniformly from the sketch's knobs (the baseline the model has to
  beat in `tessel.bench.tune_convergence`).
- `anneal`: TVM's simulated annealing on the cost model: chains that start from the best
  measured points and random ones, step to a neighbour (one knob changed), accept by the
  Metropolis rule on the model's score with a falling temperature; the best-scored
  unmeasured points visited are the batch.
- `evolve`: Ansor's evolutionary search: a population of the best measured points and
  random ones, grown by mutation (one knob) and crossover (each knob from either parent),
  kept by model score.

Model-guided strategies keep a share of each batch random (epsilon-greedy, as TVM and
Ansor do): the model only knows what it has seen.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np

from tessel.dialects import kernel
from tessel.passes.sched.tuning.records import knob_id
from tessel.tune import space
from tessel.tune.cost_model import CostModel
from tessel.tune.features import features

Scorer = Callable[[list[space.Knobs]], np.ndarray]


def scorer(op: kernel.ComputeOp, model: CostModel, sp=space) -> Scorer:  # noqa: ANN001 - sp: the space module
    cache: dict[str, float] = {}

    def score(points: list[space.Knobs]) -> np.ndarray:
        todo = [p for p in points if knob_id(p) not in cache]
        if todo:
            X = np.stack([features(op, sp.loops(op, p)) for p in todo])
            for p, s in zip(todo, model.predict(X)):
                cache[knob_id(p)] = float(s)
        return np.array([cache[knob_id(p)] for p in points])

    return score


def _unique_new(points: list[space.Knobs], measured: set[str], limit: int) -> list[space.Knobs]:
    out, seen = [], set(measured)
    for p in points:
        k = knob_id(p)
        if k not in seen:
            seen.add(k)
            out.append(p)
        if len(out) == limit:
            break
    return out


def propose(
    strategy: str,
    op: kernel.ComputeOp,
    model: CostModel,
    measured: set[str],
    best: list[space.Knobs],
    batch: int,
    rng: random.Random,
    epsilon: float = 0.2,
    sp=space,
) -> list[space.Knobs]:
    """`batch` unmeasured knob sets for the task; `best` are its best measured ones."""
    if strategy == "random" or not model.trained:
        return _unique_new([sp.sample(op, rng) for _ in range(batch * 20)], measured, batch)
    explore = max(1, int(batch * epsilon))
    score = scorer(op, model, sp)
    if strategy == "anneal":
        picked = anneal(op, score, best, batch * 4, rng, sp=sp)
    elif strategy == "evolve":
        picked = evolve(op, score, best, batch * 4, rng, sp=sp)
    else:
        raise ValueError(f"unknown search strategy {strategy!r} (random, anneal, evolve)")
    chosen = _unique_new(picked, measured, batch - explore)
    taken = measured | {knob_id(p) for p in chosen}
    return chosen + _unique_new([sp.sample(op, rng) for _ in range(explore * 20)], taken, batch - len(chosen))


def anneal(
    op: kernel.ComputeOp,
    score: Scorer,
    starts: list[space.Knobs],
    keep: int,
    rng: random.Random,
    chains: int = 16,
    steps: int = 40,
    t0: float = 0.3,
    sp=space,
) -> list[space.Knobs]:
    points = list(starts[: chains // 2]) + [sp.sample(op, rng) for _ in range(chains - min(len(starts), chains // 2))]
    current = score(points)
    visited: dict[str, tuple[float, space.Knobs]] = {knob_id(p): (s, p) for p, s in zip(points, current)}
    for step in range(steps):
        temperature = t0 * (1 - step / steps) + 1e-3
        proposals = [next(sp.neighbours(op, p, rng), p) for p in points]
        new = score(proposals)
        for i, (p, s) in enumerate(zip(proposals, new)):
            visited.setdefault(knob_id(p), (s, p))
            if s >= current[i] or rng.random() < math.exp((s - current[i]) / temperature):
                points[i], current[i] = p, s
    ranked = sorted(visited.values(), key=lambda v: -v[0])
    return [p for _, p in ranked[:keep]]


def evolve(
    op: kernel.ComputeOp,
    score: Scorer,
    best: list[space.Knobs],
    keep: int,
    rng: random.Random,
    population: int = 64,
    generations: int = 4,
    sp=space,
) -> list[space.Knobs]:
    pool = list(best[: population // 4]) + [
        sp.sample(op, rng) for _ in range(population - min(len(best), population // 4))
    ]
    seen: dict[str, tuple[float, space.Knobs]] = {}
    for _ in range(generations):
        scores = score(pool)
        for p, s in zip(pool, scores):
            seen.setdefault(knob_id(p), (s, p))
        order = np.argsort(-scores)
        parents = [pool[i] for i in order[: max(2, population // 4)]]
        children: list[space.Knobs] = []
        while len(children) < population:
            if rng.random() < 0.5:
                a, b = rng.sample(parents, 2)
                children.append({k: (a if rng.random() < 0.5 else b)[k] for k in a})
            else:
                children.append(next(sp.neighbours(op, rng.choice(parents), rng), rng.choice(parents)))
        pool = parents + children
    for p, s in zip(pool, score(pool)):
        seen.setdefault(knob_id(p), (s, p))
    ranked = sorted(seen.values(), key=lambda v: -v[0])
    return [p for _, p in ranked[:keep]]
