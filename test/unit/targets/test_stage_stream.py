"""Stages compiled while the model is still being lowered (targets/cpu/stage_stream.py).

kernel-to-loops hands each stage function on as soon as it is lowered, and the CPU
pipeline starts LLVM on it there. That is only right if a stage is complete when handed
on: the text streamed must be the text the finished module emits, for every stage (row-
fused ones and copies of an identical stage included), each once. A lowering that fails
midway must leave no compiling thread behind and the interpreter's switch interval as it
was."""

from __future__ import annotations

import sys
import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects import func

from tessel.dialects.kernel import SCHEDULE_ATTR
from tessel.frontends.onnx import import_model
from tessel.ir.diagnostics import TesselError
from tessel.passes.kernel import to_loops
from tessel.pipelines.tensor import compile_for_cpu, lower
from tessel.targets.cpu.llvm_modules import emit_stage, emit_stage_modules, stage_functions


def _model() -> onnx.ModelProto:
    """Two same-shape 3x3 convolutions (one stage lowered, the other a copy), a pool, a
    dense layer and a softmax; and a softmax over 2 MiB rows (its kernel's stages fused row
    by row, loops/row_fusion.py)."""
    rng = np.random.default_rng(3)

    def init(name: str, *shape: int) -> onnx.TensorProto:
        return helper.make_tensor(name, TensorProto.FLOAT, shape, rng.standard_normal(shape).astype(np.float32).ravel())

    nodes = [
        helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c0"], ["r0"]),
        helper.make_node("Conv", ["r0", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "wd", "bd"], ["d"], transB=1),
        helper.make_node("Softmax", ["d"], ["y"], axis=-1),
        helper.make_node("Softmax", ["s"], ["z"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "streamed",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12]),
            helper.make_tensor_value_info("s", TensorProto.FLOAT, [16, 32768]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10]),
            helper.make_tensor_value_info("z", TensorProto.FLOAT, [16, 32768]),
        ],
        [
            init("w0", 8, 8, 3, 3),
            init("b0", 8),
            init("w1", 8, 8, 3, 3),
            init("b1", 8),
            init("wd", 10, 288),
            init("bd", 10),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_each_stage_is_handed_on_complete_and_once():
    result = import_model(_model(), source="streamed.onnx")
    handed: list[tuple[str, str]] = []

    def sink(stage: func.FuncOp) -> None:
        handed.append((stage.sym_name.data, emit_stage(stage)))

    lower(result.module, result.weights, on_stage=sink)
    final, _ = emit_stage_modules(result.module)
    assert len(final) >= 5, final.keys()
    assert any("rows" in stage.attributes[SCHEDULE_ATTR].data for stage in stage_functions(result.module))
    assert [name for name, _ in handed] == list(final), "each stage once, in the module's order"
    assert dict(handed) == final, "a stage changed after it was handed on"


def test_a_streamed_compile_runs_the_model(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    model = _model()
    result = import_model(model, source="streamed.onnx")
    executable, report = compile_for_cpu(result.module, result.weights, threads=2)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
    z = rng.standard_normal((16, 32768)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x, "s": z})
    for got, expected in zip(executable.run([x, z]), want, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-7)
    assert "finished while the model was still being lowered" in report.code, report.code
    assert report.seconds["kernel-to-loops"] >= 0 and report.seconds["llvm-emit"] > 0
    executable.close()


def test_a_failed_lowering_stops_the_stream(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    lowered = to_loops.stage_function
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # after two stages went to the compiler
            raise TesselError("stage three cannot be lowered")
        return lowered(*args, **kwargs)

    monkeypatch.setattr(to_loops, "stage_function", failing)
    threads, interval = threading.active_count(), sys.getswitchinterval()
    result = import_model(_model(), source="streamed.onnx")
    with pytest.raises(TesselError, match="stage three"):
        compile_for_cpu(result.module, result.weights, threads=2)
    assert len(calls) == 3
    assert threading.active_count() == threads, "a compiling thread outlived the failed lowering"
    assert sys.getswitchinterval() == interval
