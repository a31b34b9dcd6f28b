"""Outputs of repeated calls (runtime/buffers.py OutputPool): a call's arrays belong to the
caller, so an array of an earlier call is written again only once nothing refers to it or
to its memory. Checked on the deployable model (tessel.compile) and on CpuExecutable.run:
results kept across calls stay as they were, views and exported buffers keep theirs, and
an array the caller dropped is reused (its memory address comes back) instead of a fresh
allocation that faults in its pages on the first write."""

from __future__ import annotations

import numpy as np

from tessel.runtime.buffers import OutputPool


def _inputs(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [rng.standard_normal((1, 3, 8, 8)).astype(np.float32) for _ in range(n)]


def test_kept_results_are_never_overwritten(compiled_2, oracle) -> None:
    xs = _inputs(6)
    kept = [compiled_2(x)["y"] for x in xs]  # every result held
    view = compiled_2(xs[0])["y"][0, :2]  # only a view of this one held
    buffer = memoryview(compiled_2(xs[1])["y"])  # only an exported buffer of this one
    for _ in range(5):
        compiled_2(xs[2])  # results dropped at once: these reuse one array
    for x, y in zip(xs, kept):
        np.testing.assert_allclose(y, oracle(x), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(view, oracle(xs[0])[0, :2], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(buffer), oracle(xs[1]), rtol=1e-4, atol=1e-4)


def test_a_dropped_result_is_reused(compiled_2, oracle) -> None:
    x = _inputs(1)[0]
    first = compiled_2(x)["y"].ctypes.data  # the array is dropped right away
    again = compiled_2(x)["y"]
    assert again.ctypes.data == first
    np.testing.assert_allclose(again, oracle(x), rtol=1e-4, atol=1e-4)


def test_executable_run_keeps_held_outputs(small) -> None:
    from tessel.frontends.onnx import import_model
    from tessel.pipelines.tensor import compile_for_cpu

    result = import_model(small)
    executable, _ = compile_for_cpu(result.module, result.weights, threads=2)
    a, b = _inputs(2)
    held = executable.run([a])[0]
    want = held.copy()
    address = executable.run([b])[0].ctypes.data  # dropped: the next run may reuse it
    assert address != held.ctypes.data
    assert executable.run([b])[0].ctypes.data == address
    np.testing.assert_array_equal(held, want)
    executable.close()


def test_pool_counts_only_its_own_references() -> None:
    pool = OutputPool([((4, 64), np.float32), ((3,), np.int64)])
    first = [a.ctypes.data for a in pool.take()]
    assert [a.ctypes.data for a in pool.take()] == first  # nothing held: reused
    held = pool.take()
    assert all(a.ctypes.data != f for a, f in zip(pool.take(), first))  # held: fresh
    del held
    outs = pool.take()  # the pool's arrays again, nothing else holds them
    row = outs[0][1]  # a view: it names the memory's owner as its base, not outs[0]
    address = outs[0].ctypes.data
    del outs
    fresh = pool.take()[0]
    assert fresh.ctypes.data != address  # the viewed memory is not handed out again
    assert row.base is not None  # (the view is alive up to here)
