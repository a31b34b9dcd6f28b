"""Shared models for the API tests: a small conv net (conv, relu, flatten, matmul), compiled
once per session at one and two threads, with onnx.reference as the oracle."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper


def small_model(seed: int = 0) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    g = numpy_helper.from_array(rng.standard_normal((8 * 6 * 6, 10)).astype(np.float32) / 17, "g")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Flatten", ["r"], ["f"]),
        helper.make_node("MatMul", ["f", "g"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [w, g],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def reference(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(model).run(None, {"x": x})[0]


@pytest.fixture(scope="session")
def small() -> onnx.ModelProto:
    return small_model()


@pytest.fixture(scope="session")
def compiled_1(small: onnx.ModelProto):
    import tessel

    return tessel.compile(small, threads=1)


@pytest.fixture(scope="session")
def compiled_2(small: onnx.ModelProto):
    import tessel

    return tessel.compile(small, threads=2)


@pytest.fixture(scope="session")
def oracle(small: onnx.ModelProto):
    """x -> the expected y, by onnx.reference."""
    return lambda x: reference(small, x)
