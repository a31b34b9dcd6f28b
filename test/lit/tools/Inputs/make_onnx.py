"""Write small ONNX models (and other inputs) for the tool tests, at test time.

    %python %S/Inputs/make_onnx.py KIND OUTPUT

Every model is built from code with onnx.helper and fixed seeds, so the tests see the
same bytes on every machine and nothing binary is checked in.
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def init(name: str, array: np.ndarray) -> TensorProto:
    return numpy_helper.from_array(np.asarray(array), name)


def model(nodes, inputs, outputs, initializers=(), opset: int = 17, check: bool = True) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="tessel-lit")
    m.ir_version = 8
    if check:
        onnx.checker.check_model(m, full_check=True)
    return m


def conv_relu_gemm() -> onnx.ModelProto:
    """x[1,3,4,4] -> Conv(3x3, pad 1) -> Relu -> Flatten -> Gemm -> logits[1,5].

    conv.weight (108 elements) and fc.weight (320) exceed the 16-element inline limit and
    go to the weights file; conv.bias (4) and fc.bias (5) are inlined as tg.constant."""
    nodes = [
        helper.make_node(
            "Conv", ["x", "conv.weight", "conv.bias"], ["conv"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]
        ),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("Flatten", ["relu"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"], name="fc", transB=1),
    ]
    inits = [
        init("conv.weight", f32(4, 3, 3, 3)),
        init("conv.bias", f32(4)),
        init("fc.weight", f32(5, 64)),
        init("fc.bias", f32(5)),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])
    y = helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 5])
    return model(nodes, [x], [y], inits)


def unsupported_op() -> onnx.ModelProto:
    # random generators are out of the supported set (README: operator coverage)
    nodes = [helper.make_node("RandomNormalLike", ["x"], ["y"], name="my_noise")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    return model(nodes, [x], [y])


def string_input() -> onnx.ModelProto:
    nodes = [helper.make_node("Identity", ["words"], ["y"], name="id")]
    x = helper.make_tensor_value_info("words", TensorProto.STRING, [2])
    y = helper.make_tensor_value_info("y", TensorProto.STRING, [2])
    return model(nodes, [x], [y])


def symbolic_dim() -> onnx.ModelProto:
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
    return model(nodes, [x], [y])


def reshape_input() -> onnx.ModelProto:
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])
    shape = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])
    return model(nodes, [x, shape], [y])


def bad_attribute() -> onnx.ModelProto:
    """A Constant whose value is a string: only numeric value attributes are supported."""
    nodes = [
        helper.make_node("Constant", [], ["c"], name="const", value_string="hello"),
        helper.make_node("Identity", ["x"], ["y"], name="id"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    c = helper.make_tensor_value_info("c", TensorProto.STRING, [])
    return model(nodes, [x], [y, c])


def opset11() -> onnx.ModelProto:
    """Squeeze takes its axes as an attribute before opset 13, as an input from 13 on."""
    nodes = [
        helper.make_node("Squeeze", ["x"], ["s"], name="squeeze", axes=[1]),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    return model(nodes, [x], [y], opset=11)


MODELS = {
    "conv-relu-gemm": conv_relu_gemm,
    "unsupported-op": unsupported_op,
    "string-input": string_input,
    "symbolic-dim": symbolic_dim,
    "reshape-input": reshape_input,
    "bad-attribute": bad_attribute,
    "opset11": opset11,
}


def main() -> None:
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "random-bytes":
        with open(path, "wb") as f:
            f.write(np.random.default_rng(1).integers(0, 256, 512, dtype=np.uint8).tobytes())
    elif kind == "truncated":
        data = conv_relu_gemm().SerializeToString()
        with open(path, "wb") as f:
            f.write(data[: len(data) // 2])
    else:
        onnx.save(MODELS[kind](), path)


if __name__ == "__main__":
    main()
