"""The ONNX importer end to end: a whole model through text and back, names, errors."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from tessel.dialects import tg
from tessel.dialects.context import make_context
from tessel.frontends.onnx import import_model, static_inputs
from tessel.ir.diagnostics import TesselError
from tessel.ir.signature import inputs, outputs
from tessel.ir.source import parse_module, print_module, verify
from tessel.ir.weights import WeightStore, save_weights
from tessel.targets.reference.interpreter import entry_function, run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "models"))
import resnet18  # noqa: E402


@pytest.fixture(scope="module")
def small_resnet() -> onnx.ModelProto:
    return resnet18.build(batch=2, image=32, seed=3)


def test_resnet18_matches_onnx_reference(small_resnet):
    x = np.random.default_rng(0).standard_normal((2, 3, 32, 32)).astype(np.float32)
    (expected,) = ReferenceEvaluator(small_resnet).run(None, {"input": x})
    result = import_model(small_resnet)
    verify(result.module)
    (got,) = run(result.module, [x], result.weights)
    assert got.dtype == np.float32 and got.shape == (2, 1000)
    assert np.abs(got - expected).max() <= 1e-4 * np.abs(expected).max()


def test_resnet18_has_one_op_per_node(small_resnet):
    result = import_model(small_resnet)
    ops = [
        op.name
        for op in result.module.walk()
        if op.name.startswith("tg.") and op.name not in ("tg.weight", "tg.constant")
    ]
    assert ops.count("tg.conv2d") == 20 and ops.count("tg.batch_norm") == 20 and ops.count("tg.add") == 8
    assert len(ops) == len(small_resnet.graph.node)


def test_text_and_weights_roundtrip(tmp_path, small_resnet):
    result = import_model(small_resnet, weights_file="w.npz")
    save_weights(str(tmp_path / "w.npz"), result.weights)
    text = print_module(result.module)
    (tmp_path / "m.mlir").write_text(text)
    module = parse_module(make_context(), text, str(tmp_path / "m.mlir"))
    verify(module)
    assert print_module(module) == text
    x = np.ones((2, 3, 32, 32), np.float32)
    weights = WeightStore.for_module(module, str(tmp_path / "m.mlir"))
    np.testing.assert_array_equal(run(module, [x], weights)[0], run(result.module, [x], result.weights)[0])


def test_names_and_signature(small_resnet):
    fn = entry_function(import_model(small_resnet).module)
    assert [(p.name, p.shape) for p in inputs(fn)] == [("input", (2, 3, 32, 32))]
    assert [(p.name, p.shape) for p in outputs(fn)] == [("logits", (2, 1000))]


def _model(nodes, graph_inputs, graph_outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "g", graph_inputs, graph_outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def test_unsupported_operator_names_node_op_and_opset():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    model = _model(
        [helper.make_node("RandomNormalLike", ["x"], ["y"], name="my_noise")],  # random ops are out of scope
        [x],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    with pytest.raises(TesselError) as err:
        import_model(model, source="m.onnx")
    message = str(err.value)
    assert "node 'my_noise' (RandomNormalLike, opset 17)" in message
    assert "operator RandomNormalLike is not supported" in message
    assert "Conv" in message and "\n" not in message


def test_shape_operands_must_be_bound_and_binding_works():
    data = helper.make_tensor_value_info("data", TensorProto.FLOAT, [2, 3])
    shape = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])
    model = _model([helper.make_node("Reshape", ["data", "shape"], ["y"])], [data, shape], [y])
    assert static_inputs(model) == ["shape"]
    with pytest.raises(TesselError, match="must be a compile-time constant.*--bind shape="):
        import_model(model)
    result = import_model(model, bind={"shape": np.array([3, -1])})
    (op,) = [op for op in result.module.walk() if isinstance(op, tg.ReshapeOp)]
    assert op.result.type.get_shape() == (3, 2)


def test_shape_arithmetic_is_folded_at_import():
    """Shape -> Gather-free arithmetic (Slice, Concat) feeding a Reshape needs no binding."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Slice", ["s", "zero", "one"], ["batch"]),
        helper.make_node("Concat", ["batch", "minus1"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    inits = [
        onnx.numpy_helper.from_array(np.array(v, np.int64), n)
        for n, v in (("zero", [0]), ("one", [1]), ("minus1", [-1]))
    ]
    model = _model(nodes, [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 12])], inits)
    result = import_model(model)
    names = [op.name for op in result.module.walk() if op.name.startswith("tg.")]
    assert names == ["tg.reshape"], names  # the folded shape computation is gone


def test_declared_output_shape_mismatch_is_reported():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    model = _model(
        [helper.make_node("Relu", ["x"], ["y"])], [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])]
    )
    with pytest.raises(TesselError, match="for .y. the model declares shape \\[3, 2\\] but Tessel computes \\[2, 3\\]"):
        import_model(model)


def test_every_computed_type_is_checked_against_onnx_shape_inference(monkeypatch):
    """A converter that computes the wrong shape is caught at its node, not at the output."""
    from tessel.frontends.onnx import context

    def wrong_relu(ctx):
        return [ctx.value(tg.TransposeOp, [ctx.input(0)], {"perm": tg.base.ints_attr([1, 0])})]

    monkeypatch.setitem(context.CONVERTERS, "Relu", context.ConverterInfo(wrong_relu, ()))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["r"], ["y"])]
    model = _model(nodes, [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    with pytest.raises(
        TesselError, match="for 'r' ONNX shape inference gives shape \\[2, 3\\] but Tessel computes \\[3, 2\\]"
    ):
        import_model(model)
