"""tg-layout's moves of layout conversions (passes/tg/_layout_moves.py), differentially:
ONNX models whose pools (max with ceil mode and padding, average counting or not counting
the padding, global average) and channel concats sit between convolutions, and a
MobileNet-v3 block whose channels do not fill whole blocks (carried padded), give after
tg-layout the reference's result from before it, and through the whole CPU pipeline
onnx.reference's, with no layout conversion left between the convolutions."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects import func
from xdsl.passes import PassPipeline

from tessel.dialects import tg
from tessel.dialects.context import make_context
from tessel.frontends.onnx import import_model
from tessel.ir.source import verify
from tessel.ir.weights import WeightStore, with_weights
from tessel.passes.tg.layout import TgLayout
from tessel.targets.reference.interpreter import run


def assert_cpu_result(proto: onnx.ModelProto, x: np.ndarray, want: np.ndarray) -> None:
    """The whole CPU pipeline on a fresh import of `proto` gives `want`."""
    from tessel.pipelines.tensor import compile_for_cpu

    fresh = import_model(proto)
    executable, _ = compile_for_cpu(fresh.module, fresh.weights, threads=2)
    try:
        np.testing.assert_allclose(executable.run([x])[0], want, rtol=1e-4, atol=1e-5)
    finally:
        executable.close()


POOLS = {
    "max_ceil_pad": helper.make_node(
        "MaxPool", ["a"], ["p"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 1, 0], ceil_mode=1
    ),
    "avg_exclude_pad": helper.make_node(
        "AveragePool", ["a"], ["p"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]
    ),
    "avg_include_pad": helper.make_node(
        "AveragePool", ["a"], ["p"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], count_include_pad=1
    ),
}


def model(pool: str, size: int = 11) -> onnx.ModelProto:
    """conv(16 -> 32) -> relu -> pool -> [conv(32 -> 16), pool] concat -> conv -> global avg."""
    rng = np.random.default_rng(len(pool))
    w1 = numpy_helper.from_array(rng.standard_normal((32, 16, 3, 3)).astype(np.float32) / 12, "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((16, 32, 1, 1)).astype(np.float32) / 6, "w2")
    w3 = numpy_helper.from_array(rng.standard_normal((32, 48, 3, 3)).astype(np.float32) / 20, "w3")
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["a"]),
        POOLS[pool],
        helper.make_node("Conv", ["p", "w2"], ["q"]),
        helper.make_node("Concat", ["p", "q"], ["cat"], axis=1),
        helper.make_node("Conv", ["cat", "w3"], ["r"], pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["r"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        pool,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 1, 1])],
        [w1, w2, w3],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("pool", sorted(POOLS))
def test_pools_and_concat_run_blocked(pool: str) -> None:
    proto = model(pool)
    x = np.random.default_rng(7).standard_normal((1, 16, 11, 11)).astype(np.float32)
    want = ReferenceEvaluator(proto).run(None, {"x": x})[0]

    imported = import_model(proto)
    module, store = imported.module, WeightStore(dict(imported.weights))
    ctx = make_context()
    PassPipeline(with_weights((TgLayout(),), store)).apply(ctx, module)
    verify(module)
    blocked = [op for op in module.walk() if "layout" in op.properties]
    assert len(blocked) == 2, [op.name for op in blocked]  # the pool and the global average
    concats = [op for op in module.walk() if isinstance(op, tg.ConcatOp)]
    assert len(concats) == 1 and concats[0].result.type.get_num_dims() == 5
    transforms = [op for op in module.walk() if isinstance(op, tg.LayoutTransformOp) and op.src.data != "OIHW"]
    assert len(transforms) == 2, "only the input and the output convert"
    np.testing.assert_allclose(run(module, [x], store)[0], want, rtol=1e-5, atol=1e-5)
    assert_cpu_result(proto, x, want)


def mobilenet_v3_block(channels: int) -> onnx.ModelProto:
    """expand 1x1 (16 -> C) + HardSwish, depthwise 3x3 + HardSwish, squeeze-and-excite
    (global average, 1x1 C -> 8, ReLU, 1x1 8 -> C, HardSigmoid, Mul), project 1x1 (C -> 16),
    residual Add: MobileNet-v3's inverted residual with C = 72, 120, ... (not whole blocks)."""
    rng = np.random.default_rng(channels)

    def weight(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(
            (rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))).astype(np.float32), name
        )

    inits = [
        weight("we", channels, 16, 1, 1),
        weight("wd", channels, 1, 3, 3),
        numpy_helper.from_array(rng.standard_normal(channels).astype(np.float32), "bd"),
        weight("ws1", 8, channels, 1, 1),
        weight("ws2", channels, 8, 1, 1),
        weight("wp", 16, channels, 1, 1),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "we"], ["e"]),
        helper.make_node("HardSwish", ["e"], ["eh"]),
        helper.make_node("Conv", ["eh", "wd", "bd"], ["d"], pads=[1, 1, 1, 1], group=channels),
        helper.make_node("HardSwish", ["d"], ["dh"]),
        helper.make_node("GlobalAveragePool", ["dh"], ["g"]),
        helper.make_node("Conv", ["g", "ws1"], ["s1"]),
        helper.make_node("Relu", ["s1"], ["s1r"]),
        helper.make_node("Conv", ["s1r", "ws2"], ["s2"]),
        helper.make_node("HardSigmoid", ["s2"], ["gate"], alpha=1 / 6, beta=0.5),
        helper.make_node("Mul", ["dh", "gate"], ["se"]),
        helper.make_node("Conv", ["se", "wp"], ["p"]),
        helper.make_node("Add", ["p", "x"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        f"mbv3_{channels}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 9, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 9, 9])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("channels", [72, 120, 40, 8])
def test_channels_of_partial_blocks_run_padded(channels: int) -> None:
    proto = mobilenet_v3_block(channels)
    x = np.random.default_rng(3).standard_normal((1, 16, 9, 9)).astype(np.float32)
    want = ReferenceEvaluator(proto).run(None, {"x": x})[0]

    imported = import_model(proto)
    module, store = imported.module, WeightStore(dict(imported.weights))
    PassPipeline(with_weights((TgLayout(),), store)).apply(make_context(), module)
    verify(module)
    transforms = [op for op in module.walk() if isinstance(op, tg.LayoutTransformOp) and op.src.data == "NCHW"]
    x_arg = next(op for op in module.walk() if isinstance(op, func.FuncOp)).body.block.args[0]
    assert {op.input for op in transforms} == {x_arg}, "only the input converts (for the conv and the residual)"
    assert not any(isinstance(op, tg.SliceOp) for op in module.walk()), "no padding cut off inside"
    assert not any(isinstance(op, tg.Conv2dOp) for op in module.walk()), "every convolution blocked"
    np.testing.assert_allclose(run(module, [x], store)[0], want, rtol=1e-5, atol=1e-5)
    assert_cpu_result(proto, x, want)


def test_a_models_own_channel_pad_is_not_read_from_padding() -> None:
    """A Pad of the model's own (24 channels + 8 zeros, as a DARTS-style cell might) in front
    of a depthwise convolution whose filters for those 8 channels are not zero: the padded
    view of the first conv's 2 blocks holds HardSigmoid(0) = 0.5 in its padding channels,
    not the zeros the Pad gives, so it must stay (only tg-layout's own zero-weighted
    padding may be replaced by a view's padding)."""
    rng = np.random.default_rng(24)
    inits = [
        numpy_helper.from_array(rng.standard_normal((24, 16, 1, 1)).astype(np.float32), "we"),
        numpy_helper.from_array(rng.standard_normal((32, 1, 3, 3)).astype(np.float32) + 1, "wd"),
        numpy_helper.from_array(np.array([0, 0, 0, 0, 0, 8, 0, 0], np.int64), "pads"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "we"], ["e"]),
        helper.make_node("HardSigmoid", ["e"], ["eh"], alpha=1 / 6, beta=0.5),
        helper.make_node("Pad", ["eh", "pads"], ["p"]),
        helper.make_node("Conv", ["p", "wd"], ["y"], pads=[1, 1, 1, 1], group=32),
    ]
    graph = helper.make_graph(
        nodes,
        "own_pad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 9, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 9, 9])],
        inits,
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = np.random.default_rng(5).standard_normal((1, 16, 9, 9)).astype(np.float32)
    want = ReferenceEvaluator(proto).run(None, {"x": x})[0]
    assert not want[0, 24:].any()  # zeros in, zeros out: 0.5 read instead would show
    imported = import_model(proto)
    module, store = imported.module, WeightStore(dict(imported.weights))
    PassPipeline(with_weights((TgLayout(),), store)).apply(make_context(), module)
    verify(module)
    np.testing.assert_allclose(run(module, [x], store)[0], want, rtol=1e-5, atol=1e-5)
    assert_cpu_result(proto, x, want)
