"""Reference semantics of `coll` algorithms: run every step on numpy buffers.

Buffers are (chunks, elements) arrays per GPU. Steps run in a topological order of the step
graph, which every execution that respects the dependencies agrees with when the algorithm
is race-free (coll-verify checks that). `check` compares the outputs with the collective's
definition (`Collective.expected`).
"""

from __future__ import annotations

import numpy as np

from tessel.dialects.coll.model import Algorithm
from tessel.ir.diagnostics import TesselError

from .steps import build


def random_inputs(alg: Algorithm, elems: int, seed: int = 0, dtype: type = np.float32) -> list[np.ndarray]:
    """Small integers in a float type, so sums in any order are exact."""
    rng = np.random.default_rng(seed)
    return [rng.integers(-8, 9, size=(alg.collective.input_chunks, elems)).astype(dtype) for _ in alg.gpus]


def run(alg: Algorithm, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Execute the algorithm; returns each GPU's output buffer."""
    graph = build(alg)
    elems = inputs[0].shape[1]
    bufs = []
    for g, x in zip(alg.gpus, inputs):
        if x.shape != (g.input_chunks, elems):
            raise TesselError(f"GPU {g.rank}: input has shape {x.shape}, the algorithm reads ({g.input_chunks}, {elems})")
        nan = np.full((g.output_chunks, elems), np.nan, dtype=x.dtype)
        bufs.append({"i": x.copy(), "o": nan, "s": np.full((g.scratch_chunks, elems), np.nan, dtype=x.dtype)})
    inflight: dict = {}
    for node in graph.order:
        step = graph.step(node)
        b = bufs[node[0]]

        def read(slot: tuple[str, int]) -> np.ndarray:
            buf, off = slot
            return b[buf][off : off + step.count].copy()

        def write(slot: tuple[str, int], value: np.ndarray) -> None:
            buf, off = slot
            b[buf][off : off + step.count] = value

        if step.op == "send":
            inflight[node] = read(step.src)
        elif step.op == "recv":
            write(step.dst, inflight.pop(graph.match[node]))
        elif step.op == "recv_reduce_copy":
            write(step.dst, read(step.src) + inflight.pop(graph.match[node]))
        elif step.op == "copy":
            write(step.dst, read(step.src))
        elif step.op == "reduce":
            write(step.dst, read(step.dst) + read(step.src))
    return [b["o"] for b in bufs]


def check(alg: Algorithm, inputs: list[np.ndarray], outputs: list[np.ndarray]) -> str | None:
    """None if the outputs are the collective's result, else what is wrong (first mismatch)."""
    expected = alg.collective.expected(inputs)
    for r, (want, got) in enumerate(zip(expected, outputs)):
        if want is None:
            continue
        if got.shape != want.shape:
            return f"GPU {r}: output has shape {got.shape}, expected {want.shape}"
        bad = ~np.isclose(got, want, rtol=1e-5, atol=1e-5) | np.isnan(got)
        if bad.any():
            chunk = int(np.argwhere(bad)[0][0])
            return f"GPU {r}: output chunk {chunk} is {got[chunk][:4]}..., expected {want[chunk][:4]}..."
    return None
