"""Malformed and adversarial ONNX models for the bad-input corpus, built at test time.

Each KIND is a function below; `write_model(kind, path)` writes its bytes. Built from code
with fixed seeds, so nothing binary is checked in. Most models skip onnx.checker on
purpose: the importer must catch what the checker lets through, and what it does not.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

KINDS: dict[str, Callable[[], bytes]] = {}


def kind(fn: Callable[[], onnx.ModelProto | bytes]) -> Callable[[], onnx.ModelProto | bytes]:
    def as_bytes() -> bytes:
        value = fn()
        return value if isinstance(value, bytes) else value.SerializeToString()

    KINDS[fn.__name__.replace("_", "-")] = as_bytes
    return fn


def model(nodes, inputs, outputs, initializers=(), opset: int = 17) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "bad", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="tessel-bad-inputs")
    m.ir_version = 8
    return m


def tensor(name: str, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def raw_tensor(name: str, dims: list[int], data: bytes) -> TensorProto:
    """A float tensor whose dims and raw bytes disagree (helper.make_tensor refuses these)."""
    t = TensorProto()
    t.name, t.data_type, t.raw_data = name, TensorProto.FLOAT, data
    t.dims.extend(dims)
    return t


def relu(shape=(2, 3)) -> onnx.ModelProto:
    return model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], [tensor("x", list(shape))], [tensor("y", list(shape))]
    )


@kind
def good() -> onnx.ModelProto:
    """A valid Relu model, for cases where the bad part is elsewhere (flags, inputs)."""
    return relu()


@kind
def garbage() -> bytes:
    return bytes(np.random.default_rng(0).integers(0, 256, 512, dtype=np.uint8))


@kind
def truncated() -> bytes:
    w = numpy_helper.from_array(np.ones((8, 3, 3, 3), np.float32), "w")
    m = model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [tensor("x", [1, 3, 8, 8])],
              [tensor("y", [1, 8, 6, 6])], [w])  # fmt: skip
    data = m.SerializeToString()
    return data[: len(data) // 2]


@kind
def empty() -> bytes:
    return b""


@kind
def unsupported_op() -> onnx.ModelProto:
    # random generators are out of the supported set (README: operator coverage)
    return model(
        [helper.make_node("RandomNormalLike", ["x"], ["y"], name="noise")], [tensor("x", [3, 3])], [tensor("y", [3, 3])]
    )


@kind
def custom_domain() -> onnx.ModelProto:
    m = model([helper.make_node("Frobnicate", ["x"], ["y"], name="frob", domain="com.example")],
              [tensor("x", [2])], [tensor("y", [2])])  # fmt: skip
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    return m


@kind
def cyclic() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Add", ["x", "b"], ["a"], name="first"),
        helper.make_node("Relu", ["a"], ["b"], name="second"),
    ]
    return model(nodes, [tensor("x", [2, 2])], [tensor("b", [2, 2])])


@kind
def shape_mismatch() -> onnx.ModelProto:
    return model([helper.make_node("Add", ["x", "z"], ["y"], name="add")],
                 [tensor("x", [2, 3]), tensor("z", [4, 5])], [tensor("y", [2, 3])])  # fmt: skip


@kind
def matmul_mismatch() -> onnx.ModelProto:
    return model([helper.make_node("MatMul", ["x", "z"], ["y"], name="mm")],
                 [tensor("x", [2, 3]), tensor("z", [4, 5])], [tensor("y", [2, 5])])  # fmt: skip


@kind
def huge_input() -> onnx.ModelProto:
    return relu((1000000, 1000000))


@kind
def huge_initializer() -> onnx.ModelProto:
    """An initializer whose dims claim 10^12 elements, with 16 bytes of data."""
    w = raw_tensor("w", [1000000, 1000000], b"\0" * 16)
    return model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [tensor("x", [1])],
        [tensor("y", [1000000, 1000000])],
        [w],
    )


@kind
def short_initializer() -> onnx.ModelProto:
    """dims [4, 4] (64 bytes of float32) but 8 bytes of raw data."""
    w = raw_tensor("w", [4, 4], b"\0" * 8)
    return model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [tensor("x", [4, 4])], [tensor("y", [4, 4])], [w]
    )


@kind
def negative_dims_initializer() -> onnx.ModelProto:
    w = raw_tensor("w", [-4, 4], b"")
    return model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [tensor("x", [4, 4])], [tensor("y", [4, 4])], [w]
    )


@kind
def external_data() -> onnx.ModelProto:
    w = helper.make_tensor("w", TensorProto.FLOAT, [64], vals=np.zeros(64, np.float32))
    w.ClearField("float_data")
    w.data_location = TensorProto.EXTERNAL
    entry = w.external_data.add()
    entry.key, entry.value = "location", "weights_that_do_not_exist.bin"
    return model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [tensor("x", [64])], [tensor("y", [64])], [w]
    )


@kind
def undefined_value() -> onnx.ModelProto:
    return model([helper.make_node("Add", ["x", "nowhere"], ["y"], name="add")], [tensor("x", [2])], [tensor("y", [2])])


@kind
def no_outputs() -> onnx.ModelProto:
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [tensor("x", [2])], [])


@kind
def negative_input_dim() -> onnx.ModelProto:
    return relu((2, -3))


@kind
def symbolic_dim() -> onnx.ModelProto:
    return relu(("batch", 3))


@kind
def zero_opset() -> onnx.ModelProto:
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [tensor("x", [2])], [tensor("y", [2])], opset=0)


@kind
def future_opset() -> onnx.ModelProto:
    return model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], [tensor("x", [2])], [tensor("y", [2])], opset=999
    )


@kind
def conv_channel_mismatch() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.ones((4, 5, 3, 3), np.float32), "w")
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [tensor("x", [1, 3, 8, 8])],
                 [tensor("y", [1, 4, 6, 6])], [w])  # fmt: skip


@kind
def conv_zero_stride() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", strides=[0, 0])],
                 [tensor("x", [1, 3, 8, 8])], [tensor("y", [1, 4, 6, 6])], [w])  # fmt: skip


@kind
def conv_kernel_too_large() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.ones((4, 3, 9, 9), np.float32), "w")
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [tensor("x", [1, 3, 4, 4])],
                 [tensor("y", [1, 4, 1, 1])], [w])  # fmt: skip


@kind
def conv_bad_groups() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.ones((4, 1, 3, 3), np.float32), "w")
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", group=2)], [tensor("x", [1, 3, 8, 8])],
                 [tensor("y", [1, 4, 6, 6])], [w])  # fmt: skip


@kind
def pool_negative_pads() -> onnx.ModelProto:
    return model([helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], pads=[-1, -1, 0, 0])],
                 [tensor("x", [1, 1, 4, 4])], [tensor("y", [1, 1, 3, 3])])  # fmt: skip


@kind
def reshape_bad_count() -> onnx.ModelProto:
    shape = numpy_helper.from_array(np.array([5, 5], np.int64), "shape")
    return model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")], [tensor("x", [2, 3])],
                 [tensor("y", [5, 5])], [shape])  # fmt: skip


@kind
def transpose_bad_perm() -> onnx.ModelProto:
    return model(
        [helper.make_node("Transpose", ["x"], ["y"], name="t", perm=[0, 0])],
        [tensor("x", [2, 3])],
        [tensor("y", [3, 2])],
    )


@kind
def concat_bad_axis() -> onnx.ModelProto:
    return model(
        [helper.make_node("Concat", ["x", "x"], ["y"], name="cat", axis=7)],
        [tensor("x", [2, 3])],
        [tensor("y", [4, 3])],
    )


@kind
def duplicate_output() -> onnx.ModelProto:
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="a"), helper.make_node("Neg", ["x"], ["y"], name="b")]
    return model(nodes, [tensor("x", [2])], [tensor("y", [2])])


@kind
def string_input() -> onnx.ModelProto:
    return model([helper.make_node("Identity", ["x"], ["y"], name="id")], [tensor("x", [2], TensorProto.STRING)],
                 [tensor("y", [2], TensorProto.STRING)])  # fmt: skip


@kind
def no_kernels() -> onnx.ModelProto:
    """Identity only: nothing to compute, so nothing to tune."""
    return model([helper.make_node("Identity", ["x"], ["y"], name="id")], [tensor("x", [2])], [tensor("y", [2])])


@kind
def inputs_wrong_shape() -> bytes:
    """Not a model: an .npz of inputs for `good` whose x has the wrong shape (5x5, not 2x3)."""
    import io

    out = io.BytesIO()
    np.savez(out, x=np.zeros((5, 5), np.float32))
    return out.getvalue()


def write_model(kind_name: str, path: Path) -> None:
    if kind_name not in KINDS:
        raise ValueError(f"unknown bad ONNX kind {kind_name!r} (kinds: {', '.join(sorted(KINDS))})")
    path.write_bytes(KINDS[kind_name]())


if __name__ == "__main__":
    write_model(sys.argv[1], Path(sys.argv[2]))
