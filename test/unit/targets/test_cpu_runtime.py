"""The CPU runtime's executors agree: the native plan (one call per run, the module's own
worker threads, dynamic chunks) and the Python executor (a ctypes call per launch, a thread pool) give
bitwise the same outputs at every thread count, since a split only decides which thread
computes an output element, never how. Profiling runs the same plan one launch at a time."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu

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


@pytest.mark.parametrize("threads", [2, 3, 5])
def test_every_chunk_runs_once_per_launch(threads):
    """The calling thread claims chunks from the front of a launch and the workers from the
    back (native_plan.py's drain): each chunk must run exactly once, at any thread count
    and for chunk counts that do not divide. A softmax scales its output in place, so a
    chunk run twice divides twice and a chunk skipped keeps exp(x - max): both show."""
    from onnx import TensorProto, helper

    rows, cols = 301, 1531  # long enough that the workers take chunks too
    graph = helper.make_graph(
        [helper.make_node("Softmax", ["x"], ["y"], axis=-1)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, cols])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, cols])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    x = np.random.default_rng(threads).standard_normal((rows, cols)).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    want = e / e.sum(axis=-1, keepdims=True)
    result = import_model(model)
    executable = compile_for_cpu(result.module, result.weights, threads=threads)[0]
    assert executable.native is not None
    for _ in range(200):
        np.testing.assert_allclose(executable.run([x])[0], want, rtol=1e-5, atol=1e-7)
    executable.close()


def test_profile_runs_every_launch_and_keeps_results(dqn):
    model, inputs = dqn
    executable = _compile(model, 2)
    expected = executable.run(inputs)[0]
    rows = executable.profile(inputs, runs=3)
    assert [name for name, _, _ in rows] == [launch.name for launch in executable.launches]
    assert all(ms > 0 for _, _, ms in rows)  # each timed by the plan's clock (0: not timed)
    assert np.array_equal(executable.run(inputs)[0], expected)
    executable.close()


def test_the_plan_times_the_launches_it_is_asked_to(dqn):
    """The descriptor's clock (runtime/native.py): a flagged launch records its nanoseconds
    in the run, the others nothing, and switched off the plan records nothing more."""
    model, inputs = dqn
    executable = _compile(model, 2)
    plan = executable.native
    assert plan is not None and len(plan.table) >= 2
    expected = executable.run(inputs)[0]
    plan.time_launches([1])
    executable.run(inputs)
    seconds = plan.elapsed()
    assert seconds[1] > 0 and not seconds[[i for i in range(len(seconds)) if i != 1]].any()
    plan.time_launches([1], on=False)
    executable.run(inputs)
    assert not plan.elapsed().any() and not plan.table[:, 5].any()
    assert np.array_equal(executable.run(inputs)[0], expected)
    executable.close()


def test_each_run_reads_the_arrays_it_is_given(dqn):
    """NativePlan.patch keeps a slot's address while the slot is given the same array
    (runtime/native.py): a new array, a view, an array made where a freed one was, and
    one written in place between runs must each be read where it is now."""
    model, inputs = dqn
    executable = _compile(model, 2)
    reference = _compile(model, 1)
    reference.native = None  # the Python executor reads every address on every launch
    rng = np.random.default_rng(7)

    def check(x: np.ndarray) -> None:
        want = reference.run([x.copy()])[0]
        assert np.array_equal(executable.run([x])[0], want)
        outs = [np.empty_like(want)]
        executable.run_into([x], outs)
        assert np.array_equal(outs[0], want)

    x = inputs[0].copy()
    check(x)
    x[...] = rng.standard_normal(x.shape)  # the same array, new values
    check(x)
    with pytest.raises(ValueError):  # numpy will not move the memory of an array the plan saw
        x.resize(2 * x.size, refcheck=False)
    check(rng.standard_normal(x.shape).astype(np.float32))  # another array
    wide = rng.standard_normal((2, *x.shape)).astype(np.float32)
    check(wide[1])  # a view into another array's memory
    for _ in range(3):  # arrays made and freed in turn, possibly at a freed one's address
        check(rng.standard_normal(x.shape).astype(np.float32))
    executable.close()
    reference.close()


def test_every_external_symbol_resolves_in_process(dqn):
    """MCJIT resolves a missing symbol to null and may leave the module's other
    relocations unapplied (a crash far from the cause), so the emitted IR may only declare
    functions the process already has (libc, libm, pthreads)."""
    import ctypes
    import re

    from tessel.pipelines.tensor import translate_for_cpu

    model, _ = dqn
    executable = _compile(model, 1)
    irs = [executable.llvm_ir]
    executable.close()
    text = """
    func.func @main(%x: tensor<4x3xf64>, %y: tensor<4x3xf32>) -> (tensor<4x3xf64>, tensor<4x3xf32>) {
      %a = tg.tanh %x : tensor<4x3xf64>
      %b = tg.gelu %x : tensor<4x3xf64>
      %c = tg.add %a, %b : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
      %d = tg.tanh %y : tensor<4x3xf32>
      func.return %c, %d : tensor<4x3xf64>, tensor<4x3xf32>
    }
    """
    path = Path(__file__).parent / "_symbols.mlir"
    try:
        path.write_text(text)
        irs.append(translate_for_cpu(str(path), {}))
    finally:
        path.unlink(missing_ok=True)
    process = ctypes.CDLL(None)
    for ir in irs:
        for name in re.findall(r"^declare .*? @([\w.$]+)\(", ir, re.M):
            if name.startswith("llvm."):
                continue
            assert hasattr(process, name), f"the emitted IR declares {name}, which this process does not have"
    assert "GOMP" not in "".join(re.findall(r"^declare .*$", irs[0], re.M))


@pytest.mark.parametrize("threads", [1, 2])
def test_resnet_block_runs_at_each_thread_count(threads):
    """A whole-network run per thread count (serial launches and pooled launches)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "models"))
    import resnet18

    model = resnet18.build(image=64)
    x = np.random.default_rng(2).standard_normal([d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim])
    result = import_model(model, source="resnet18.onnx")
    reference_module = result.module.clone()
    executable = compile_for_cpu(result.module, result.weights, threads=threads)[0]
    got = executable.run([x.astype(np.float32)])[0]
    executable.close()
    from tessel.targets.reference.interpreter import run

    want = run(reference_module, [x.astype(np.float32)], result.weights)[0]
    assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()
