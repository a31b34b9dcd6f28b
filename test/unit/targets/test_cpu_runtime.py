"""The CPU runtime's executors agree: the native plan (one call per run, libgomp threads,
dynamic chunks) and the Python executor (a ctypes call per launch, a thread pool) give
bitwise the same outputs at every thread count, since a split only decides which thread
computes an output element, never how. Profiling runs the same plan one launch at a time."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tessel.compiler import compile_for_cpu
from tessel.frontends.onnx import import_model

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "models"))


@pytest.fixture(scope="module")
def dqn():
    import dqn as model_script

    model = model_script.build()
    x = np.random.default_rng(1).standard_normal([d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim])
    return model, [x.astype(np.float32)]


def _compile(model, threads: int):
    result = import_model(model, source="dqn.onnx")
    return compile_for_cpu(result.module, result.weights, threads=threads)[0]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_executors_agree_bitwise(dqn, threads):
    model, inputs = dqn
    reference = _compile(model, 1)
    expected = reference.run(inputs)[0]
    executable = _compile(model, threads)
    assert executable.native is not None or threads > 1
    native = executable.run(inputs)[0]
    executable.native = None  # the Python executor on the same compiled code
    python = executable.run(inputs)[0]
    executable.close()
    reference.close()
    assert np.array_equal(native, expected) and np.array_equal(python, expected)


def test_profile_runs_every_launch_and_keeps_results(dqn):
    model, inputs = dqn
    executable = _compile(model, 2)
    expected = executable.run(inputs)[0]
    rows = executable.profile(inputs, runs=3)
    assert [name for name, _, _ in rows] == [launch.name for launch in executable.launches]
    assert all(ms >= 0 for _, _, ms in rows)
    assert np.array_equal(executable.run(inputs)[0], expected)
    executable.close()
