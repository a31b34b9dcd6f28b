"""frontends/onnx/digest.py: the model cache's key of a model as given. The same content
(a copy, a reparse) has one digest; any change to what the import reads (a weight's byte,
an initializer's name or shape, a node's attribute, the opset, an input's shape, metadata)
is another; a model whose weights are in an external file not loaded has none."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tessel.frontends.onnx.digest import model_digest


def model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    big = numpy_helper.from_array(rng.standard_normal((64, 1024)).astype(np.float32), "big")
    ints = helper.make_tensor("shape", TensorProto.INT64, [2], [1, -1])  # int64_data, not raw_data
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Reshape", ["c", "shape"], ["r"]),
        helper.make_node("MatMul", ["r", "big"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1024])],
        [w, big, ints],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_the_same_content_has_one_digest() -> None:
    m = model()
    digest = model_digest(m)
    assert digest is not None and len(digest) == 32
    assert model_digest(onnx.load_from_string(m.SerializeToString())) == digest
    copy = onnx.ModelProto()
    copy.CopyFrom(m)
    assert model_digest(copy) == digest
    assert model_digest(m, threads=1) == digest


def _last_byte(m: onnx.ModelProto) -> None:
    t = m.graph.initializer[1]
    t.raw_data = t.raw_data[:-1] + bytes([t.raw_data[-1] ^ 1])


def _int_data(m: onnx.ModelProto) -> None:
    m.graph.initializer[2].int64_data[1] = 64


CHANGES: dict[str, Callable[[onnx.ModelProto], None]] = {
    "a weight's last byte": _last_byte,
    "an int64_data value": _int_data,
    "an initializer's name": lambda m: setattr(m.graph.initializer[0], "name", "w2"),
    "an initializer's dims": lambda m: m.graph.initializer[1].dims.__setitem__(0, 32),
    "a node's attribute": lambda m: m.graph.node[0].attribute[0].ints.__setitem__(0, 0),
    "a node's input": lambda m: m.graph.node[2].input.__setitem__(1, "w"),
    "the opset": lambda m: setattr(m.opset_import[0], "version", 18),
    "an input's shape": lambda m: setattr(m.graph.input[0].type.tensor_type.shape.dim[3], "dim_value", 17),
    "metadata": lambda m: helper.set_model_props(m, {"k": "v"}),
    "the graph's name": lambda m: setattr(m.graph, "name", "h"),
}


@pytest.mark.parametrize("change", CHANGES)
def test_any_change_is_another_digest(change: str) -> None:
    m = model()
    before = model_digest(m)
    CHANGES[change](m)
    assert model_digest(m) != before


def test_external_data_not_loaded_has_no_digest() -> None:
    m = model()
    t = m.graph.initializer[1]
    t.data_location = TensorProto.EXTERNAL
    t.ClearField("raw_data")
    t.external_data.add(key="location", value="weights.bin")
    assert model_digest(m) is None


def test_external_data_in_a_subgraph_constant_has_no_digest() -> None:
    m = model()
    value = numpy_helper.from_array(np.zeros(4, np.float32), "v")
    value.data_location = TensorProto.EXTERNAL
    value.ClearField("raw_data")
    value.external_data.add(key="location", value="v.bin")
    const = helper.make_node("Constant", [], ["k"], value=value)
    branch = helper.make_graph([const], "b", [], [helper.make_tensor_value_info("k", TensorProto.FLOAT, [4])])
    m.graph.node.append(helper.make_node("If", ["cond"], ["z"], then_branch=branch, else_branch=branch))
    assert model_digest(m) is None
