"""One compiled model called from 8 Python threads, 1,000 calls in all, every result checked
against onnx.reference: at one thread per call (each concurrent call in its own arena) and
at two (calls take the executor's pool lock in turn), compiled and loaded."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import tessel

THREADS = 8
CALLS = 1000


def hammer(model, oracle) -> list[str]:
    """CALLS calls from THREADS threads at once, on 16 different inputs; the mismatches."""
    rng = np.random.default_rng(7)
    xs = [rng.standard_normal((1, 3, 8, 8)).astype(np.float32) for _ in range(16)]
    expected = [oracle(x) for x in xs]
    start = threading.Barrier(THREADS)

    def worker(t: int) -> list[str]:
        start.wait()
        bad = []
        for i in range(t, CALLS, THREADS):
            k = (i * 7 + t) % len(xs)
            y = model(xs[k])["y"]
            if not np.allclose(y, expected[k], rtol=1e-4, atol=1e-4):
                bad.append(f"call {i} on input {k}: max error {np.abs(y - expected[k]).max()}")
        return bad

    with ThreadPoolExecutor(THREADS) as pool:
        return [m for bad in pool.map(worker, range(THREADS)) for m in bad]


@pytest.mark.parametrize("fixture", ["compiled_1", "compiled_2"])
def test_eight_threads_thousand_calls(fixture: str, request: pytest.FixtureRequest, oracle) -> None:
    model = request.getfixturevalue(fixture)
    assert hammer(model, oracle) == []
    if model.threads == 1:
        assert 1 < model._made <= model.max_concurrency  # concurrent calls had arenas of their own
    else:
        assert model._made == 1  # one arena, calls in turn under the pool lock


def test_eight_threads_on_a_loaded_model(compiled_1, tmp_path, oracle) -> None:
    model = tessel.load(compiled_1.save(tmp_path / "m"), max_concurrency=4)
    assert hammer(model, oracle) == []
    assert model._made <= 4
