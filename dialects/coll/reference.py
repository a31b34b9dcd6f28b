"""The meaning of `coll`: what a collective computes, and what an algorithm's steps do.

`expected` is a collective's definition on numpy buffers; `run` executes an algorithm step
by step. Buffers are (chunks, elements) arrays per GPU. Steps run in a topological order of
the step graph, which every execution that respects the dependencies agrees with when the
algorithm is race-free (coll-verify checks that). `check` compares an execution's outputs
(this interpreter's, or the gloo executor's) with the definition. This is the one home of
these semantics: the verifier proves the same postcondition symbolically (verify.py).
"""

from __future__ import annotations

import numpy as np

from tessel.ir.diagnostics import TesselError

from .model import Algorithm, Collective, CollKind, Step
from .steps import Node, build


def expected(coll: Collective, inputs: list[np.ndarray]) -> list[np.ndarray | None]:
    """Per-rank output arrays (chunks x elems) from per-rank inputs; None where a rank's
    output is unconstrained (every rank but the root of a reduce)."""
    n, c = coll.ranks, coll.chunkup
    kind = coll.kind
    if kind == CollKind.ALLGATHER:
        whole = np.concatenate(inputs, axis=0)
        return [whole.copy() for _ in range(n)]
    if kind == CollKind.REDUCE_SCATTER:
        total = np.sum(inputs, axis=0)
        return [total[r * c : (r + 1) * c].copy() for r in range(n)]
    if kind == CollKind.ALLREDUCE:
        total = np.sum(inputs, axis=0)
        return [total.copy() for _ in range(n)]
    if kind == CollKind.ALLTOALL:
        return [np.concatenate([inputs[s][d * c : (d + 1) * c] for s in range(n)], axis=0) for d in range(n)]
    if kind == CollKind.BROADCAST:
        return [inputs[coll.root].copy() for _ in range(n)]
    total = np.sum(inputs, axis=0)
    return [total.copy() if r == coll.root else None for r in range(n)]


def random_inputs(alg: Algorithm, elems: int, seed: int = 0, dtype: type = np.float32) -> list[np.ndarray]:
    """Small integers in a float type, so sums in any order are exact."""
    rng = np.random.default_rng(seed)
    return [rng.integers(-8, 9, size=(alg.collective.input_chunks, elems)).astype(dtype) for _ in alg.gpus]


Slot = tuple[str, int]


def _slot(slot: Slot | None, step: Step) -> Slot:
    if slot is None:  # the IR verifier and the model's builders give every step its slots
        raise TesselError(f"a {step.op} step without the buffer slot it needs")
    return slot


def _rows(buffers: dict[str, np.ndarray], slot: Slot, count: int) -> np.ndarray:
    """The `count` rows (chunks) of a buffer from `slot` on: a view, so writes land in place."""
    buf, off = slot
    return buffers[buf][off : off + count]


def run(alg: Algorithm, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Execute the algorithm; returns each GPU's output buffer."""
    graph = build(alg)
    elems = inputs[0].shape[1]
    bufs = []
    for g, x in zip(alg.gpus, inputs):
        if x.shape != (g.input_chunks, elems):
            raise TesselError(
                f"GPU {g.rank}: input has shape {x.shape}, the algorithm reads ({g.input_chunks}, {elems})"
            )
        nan = np.full((g.output_chunks, elems), np.nan, dtype=x.dtype)
        bufs.append({"i": x.copy(), "o": nan, "s": np.full((g.scratch_chunks, elems), np.nan, dtype=x.dtype)})
    inflight: dict[Node, np.ndarray] = {}
    for node in graph.order:
        step = graph.step(node)
        b, n = bufs[node[0]], step.count
        if step.op == "send":
            inflight[node] = _rows(b, _slot(step.src, step), n).copy()
        elif step.op == "recv":
            _rows(b, _slot(step.dst, step), n)[:] = inflight.pop(graph.match[node])
        elif step.op == "recv_reduce_copy":
            total = _rows(b, _slot(step.src, step), n) + inflight.pop(graph.match[node])
            _rows(b, _slot(step.dst, step), n)[:] = total
        elif step.op == "copy":
            _rows(b, _slot(step.dst, step), n)[:] = _rows(b, _slot(step.src, step), n).copy()
        elif step.op == "reduce":
            total = _rows(b, _slot(step.dst, step), n) + _rows(b, _slot(step.src, step), n)
            _rows(b, _slot(step.dst, step), n)[:] = total
    return [b["o"] for b in bufs]


def check(alg: Algorithm, inputs: list[np.ndarray], outputs: list[np.ndarray]) -> str | None:
    """None if the outputs are the collective's result, else what is wrong (first mismatch)."""
    for r, (want, got) in enumerate(zip(expected(alg.collective, inputs), outputs)):
        if want is None:
            continue
        if got.shape != want.shape:
            return f"GPU {r}: output has shape {got.shape}, expected {want.shape}"
        bad = ~np.isclose(got, want, rtol=1e-5, atol=1e-5) | np.isnan(got)
        if bad.any():
            chunk = int(np.argwhere(bad)[0][0])
            return f"GPU {r}: output chunk {chunk} is {got[chunk][:4]}..., expected {want[chunk][:4]}..."
    return None
