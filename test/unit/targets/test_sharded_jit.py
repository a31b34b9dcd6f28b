"""The CPU target's JIT: each stage its own LLVM module, compiled in parallel threads and cached
by content (targets/cpu/jit.ShardedModule, llvm_modules.emit_stage_modules).

Stages whose code is identical are compiled once and share it; a second compile of the same model loads
every module from the object cache, and a model that shares kernels with one compiled before
loads those; executables built and dropped repeatedly (each holding engines in their own LLVM
contexts) free in the right order (a context freed before its engine crashed the process)."""

from __future__ import annotations

import gc

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.cpu.jit import ShardedModule, StageCompiler
from tessel.targets.cpu.llvm_modules import STAGE_SYMBOL, emit_stage_modules


def _layers(widths: list[int], n: int = 64) -> tuple[onnx.ModelProto, list[np.ndarray]]:
    """x[1, n] -> MatMul -> Relu per layer (each its own kernel; same widths, same code)."""
    rng = np.random.default_rng(len(widths))
    nodes, inits, weights, prev, k = [], [], [], "x", n
    for i, m in enumerate(widths):
        w = (rng.standard_normal((k, m)) / np.sqrt(k)).astype(np.float32)
        weights.append(w)
        inits.append(helper.make_tensor(f"w{i}", TensorProto.FLOAT, [k, m], w.ravel()))
        nodes += [
            helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"]),
            helper.make_node("Relu", [f"m{i}"], [f"r{i}"]),
        ]
        prev, k = f"r{i}", m
    graph = helper.make_graph(
        nodes,
        "layers",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, k])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), weights


def _compile(model: onnx.ModelProto):
    result = import_model(model, source="layers.onnx")
    return compile_for_cpu(result.module, result.weights, threads=2)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    return tmp_path


def _check(executable, weights: list[np.ndarray]) -> None:
    x = np.random.default_rng(0).standard_normal((1, weights[0].shape[0])).astype(np.float32)
    want = x.astype(np.float64)
    for w in weights:
        want = np.maximum(want @ w, 0)
    np.testing.assert_allclose(executable.run([x])[0], want, rtol=1e-5, atol=1e-5)


def _stage_modules(widths: list[int]) -> tuple[dict[str, str], str]:
    from tessel.pipelines.tensor import lower

    result = import_model(_layers(widths)[0], source="layers.onnx")
    lower(result.module, result.weights)
    return emit_stage_modules(result.module)


def test_identical_stages_compile_once(cache):
    """Two stages whose code is the same (kernels that differ only in name) share one module."""
    stages, runtime = _stage_modules([16, 8])
    ir = next(iter(stages.values()))
    compiler = StageCompiler()
    compiler.add("a", ir)
    compiler.add("b", ir)
    code = compiler.finish(runtime, STAGE_SYMBOL)
    assert code.stages["a"] is code.stages["b"]
    assert code.address("a.dispatch") == code.address("b.dispatch") != code.address("a")
    assert code.address("tessel.run_plan")
    assert "1 stages identical to another, compiled once; 0 modules from the object cache" in code.note


def test_second_compile_and_shared_kernels_come_from_the_cache(cache):
    first, _ = _compile(_layers([64, 64])[0])
    first.close()
    again, report = _compile(_layers([64, 64])[0])
    assert isinstance(again.compiled, ShardedModule) and again.compiled.cache_hit, report.code
    again.close()
    model, weights = _layers([64, 64, 24])  # a new kernel beside the cached ones
    other, report = _compile(model)
    code = other.compiled
    assert isinstance(code, ShardedModule)
    hits = [m.cache_hit for m in code.stages.values()]
    assert any(hits) and not all(hits), report.code
    _check(other, weights)
    other.close()


def test_stage_modules_name_the_stage_canonically():
    stages, runtime = _stage_modules([16, 8])
    assert stages and all(f"define void @{STAGE_SYMBOL}(" in ir for ir in stages.values())
    assert all(f"@{name}(" not in ir for name, ir in stages.items())
    assert "@tessel.run_plan" in runtime


def test_executables_are_freed_in_a_safe_order(cache):
    model, weights = _layers([32, 16])
    for _ in range(4):
        executable, _ = _compile(model)
        _check(executable, weights)
        executable.close()
        del executable
        gc.collect()
