"""Concats whose pieces are contiguous slabs of the result (tg.ConcatOp.in_slabs) are copied
into place by tg-to-kernel instead of compiled as a select over the pieces, when they are a
group of their own; those wider than 8 pieces always are (neither split into a tree nor
fused). Differentially, through the whole CPU pipeline against
onnx.reference: a DenseNet block (every layer concatenates all earlier features, up to 12
pieces, blocked NCHW16c channels; and with a convolution making its input, when
tg-plan-memory builds every concat in the last one's buffer, no copies), a sequence concat of 12 step outputs on axis 0 (an
unrolled RNN's), GoogLeNet's four-branch concat read by two consumers (and also returned),
and a DenseNet block at batch 2 (not slabs: still kernels). test/lit/passes/tg/
to-kernel-concat-slabs.mlir has the IR and the cases left to kernels."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu

RNG = np.random.default_rng(11)


def weight(name: str, *shape: int, scale: float = 1.0) -> onnx.TensorProto:
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def make(nodes, inits, x_shape, y_shapes, outputs=("y",)) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, list(s)) for o, s in zip(outputs, y_shapes)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def dense_block(layers: int = 11, growth: int = 16, batch: int = 1, stem: bool = False) -> onnx.ModelProto:
    """DenseNet's block: layer i is BN -> ReLU -> 3x3 conv over the concat of all before it;
    with `stem`, the block's input is a 1x1 convolution's output (blocked NCHW16c, as in
    DenseNet-121, where a transition layer makes it), not the function's argument."""
    nodes, inits, feats, channels = [], [], ["x"], 32
    if stem:
        inits.append(weight("stem", 32, 32, 1, 1, scale=0.2))
        nodes.append(helper.make_node("Conv", ["x", "stem"], ["x0"]))
        feats = ["x0"]
    for i in range(layers):
        cat = f"cat{i}"
        nodes.append(helper.make_node("Concat", feats, [cat], axis=1) if len(feats) > 1 else None)
        src = cat if len(feats) > 1 else feats[0]
        inits += [weight(f"s{i}", channels, scale=0.2), weight(f"b{i}", channels, scale=0.2)]
        inits += [weight(f"m{i}", channels, scale=0.1), numpy_helper.from_array(np.ones(channels, np.float32), f"v{i}")]
        nodes.append(helper.make_node("BatchNormalization", [src, f"s{i}", f"b{i}", f"m{i}", f"v{i}"], [f"n{i}"]))
        nodes.append(helper.make_node("Relu", [f"n{i}"], [f"r{i}"]))
        inits.append(weight(f"w{i}", growth, channels, 3, 3, scale=1 / (3 * channels**0.5)))
        nodes.append(helper.make_node("Conv", [f"r{i}", f"w{i}"], [f"f{i}"], pads=[1, 1, 1, 1]))
        feats.append(f"f{i}")
        channels += growth
    nodes.append(helper.make_node("Concat", feats, ["all"], axis=1))
    nodes.append(helper.make_node("GlobalAveragePool", ["all"], ["y"]))
    return make([n for n in nodes if n is not None], inits, (batch, 32, 7, 7), [(batch, channels, 1, 1)])


def sequence_concat(steps: int = 12) -> onnx.ModelProto:
    """An unrolled recurrence: h_t = tanh(h_{t-1} W); the steps concatenated on axis 0."""
    nodes, inits, prev, outs = [], [weight("w", 8, 8, scale=0.4)], "x", []
    for t in range(steps):
        nodes.append(helper.make_node("MatMul", [prev, "w"], [f"m{t}"]))
        nodes.append(helper.make_node("Tanh", [f"m{t}"], [f"h{t}"]))
        prev = f"h{t}"
        outs.append(prev)
    nodes.append(helper.make_node("Concat", outs, ["seq"], axis=0))
    nodes.append(helper.make_node("ReduceSum", ["seq"], ["y"], keepdims=0, axes=None))
    return make(nodes, inits, (1, 8), [()])


def branches(returned: bool = False) -> onnx.ModelProto:
    """GoogLeNet's inception: four convolutions concatenated, read by two convolutions."""
    inits = [weight(f"w{i}", 16 * (i + 1), 16, 1, 1, scale=0.25) for i in range(4)]
    inits += [weight("u", 8, 160, 3, 3, scale=0.03), weight("v", 8, 160, 1, 1, scale=0.08)]
    nodes = [helper.make_node("Conv", ["x", f"w{i}"], [f"b{i}"]) for i in range(4)]
    nodes.append(helper.make_node("Concat", ["b0", "b1", "b2", "b3"], ["cat"], axis=1))
    nodes.append(helper.make_node("Conv", ["cat", "u"], ["p"], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("Conv", ["cat", "v"], ["q"]))
    nodes.append(helper.make_node("Add", ["p", "q"], ["y"]))
    outputs, shapes = ("y",), [(1, 8, 6, 6)]
    if returned:
        outputs, shapes = ("y", "cat"), [(1, 8, 6, 6), (1, 160, 6, 6)]
    return make(nodes, inits, (1, 16, 6, 6), shapes, outputs)


def compiled(proto: onnx.ModelProto):
    result = import_model(proto)
    return compile_for_cpu(result.module, result.weights, threads=2)


def kernel_names(executable) -> list[str]:
    return [launch.name for launch in executable.launches]


@pytest.mark.parametrize(
    ("name", "proto", "x_shape"),
    [
        ("dense_block", dense_block(), (1, 32, 7, 7)),
        ("dense_block_stem", dense_block(stem=True), (1, 32, 7, 7)),
        ("dense_block_batch2", dense_block(layers=9, batch=2), (2, 32, 7, 7)),
        ("sequence", sequence_concat(), (1, 8)),
        ("branches", branches(), (1, 16, 6, 6)),
        ("branches_returned", branches(returned=True), (1, 16, 6, 6)),
    ],
)
def test_matches_onnx_reference(name: str, proto: onnx.ModelProto, x_shape: tuple[int, ...]) -> None:
    x = RNG.standard_normal(x_shape).astype(np.float32)
    want = ReferenceEvaluator(proto).run(None, {"x": x})
    executable, _ = compiled(proto)
    try:
        got = executable.run([x])
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
        copies = kernel_names(executable).count("copy")
        concat_kernels = [n for n in kernel_names(executable) if "concat" in n]
        if name in ("dense_block", "sequence"):
            # the concats wider than 8 are copies into place (no tree), less the pieces
            # tg-plan-memory built in place: each feature in the last wide concat that
            # holds it, and each concat's own NCHW16c copy of x (which makes them no
            # prefixes of one another); 64-byte slabs only (the
            # sequence's steps are 32 bytes: every other one); the narrower concats stay
            # fused with their BN + ReLU consumers
            wide = [n for n in proto.graph.node if n.op_type == "Concat" and len(n.input) > 8]
            pieces = sum(len(n.input) for n in wide)
            features = {i for n in wide for i in n.input} - {"x"}
            in_place = len(features) // 2 if name == "sequence" else len(features) + len(wide)
            assert copies == pieces - in_place > 0, kernel_names(executable)
            assert not any("concat_concat" in n for n in concat_kernels), concat_kernels
            if name == "sequence":
                assert concat_kernels == []
        elif name == "dense_block_stem":
            # each wide concat is the one before it and one more feature: all are views of
            # the last one's front, where every feature is built (tg-plan-memory)
            assert copies == 0 and concat_kernels, kernel_names(executable)
        elif name.startswith("branches"):
            # the four branches built in place (returned, the blocked concat is converted
            # into the caller's NCHW by a kernel)
            assert copies == 0 and concat_kernels == [], kernel_names(executable)
        else:
            assert copies == 0 and concat_kernels  # batch 2: the pieces interleave
    finally:
        executable.close()
