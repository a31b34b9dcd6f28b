"""The output of every prefix of the tensor pipeline is a valid input to the rest of it.

For each k, the first k passes run, the module goes through text, and the CPU pipeline
compiles what is left of it (`pipelines/tensor.py` reads from the IR which passes have
already run) and runs it against the reference semantics of the original module.
Before tg-fuse the graph passes run again on the prefix's output, so they must leave alone
what they already did. (Regression: the IR after `tessel-opt -p tg-fold-batchnorm,tg-fuse` stopped tessel-run
--target cpu with a KeyError in tg-layout.)
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.passes import PassPipeline

from tessel.dialects.context import make_context
from tessel.frontends.onnx import import_model
from tessel.ir.source import parse_module, print_module, verify
from tessel.ir.weights import WeightStore, with_weights
from tessel.pipelines.tensor import compile_for_cpu, graph_passes, kernel_passes, passes_done
from tessel.targets.reference.interpreter import run as run_reference


def every_graph_pass_model():
    """Conv + batch norm + relu (fold-batchnorm, layout), a strided ConvTranspose
    (conv-transpose-to-conv), a MatMul by a constant (dense packing), softmax."""
    rng = np.random.default_rng(0)

    def init(name, *shape, positive=False):
        data = rng.uniform(0.5, 1.5, shape) if positive else rng.standard_normal(shape)
        return numpy_helper.from_array(data.astype(np.float32), name)

    inits = [
        init("w", 16, 3, 3, 3), init("gamma", 16, positive=True), init("beta", 16), init("mean", 16),
        init("var", 16, positive=True), init("wt", 16, 8, 2, 2), init("fc", 8 * 16 * 16, 10),
        numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "flat"),
    ]  # fmt: skip
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"], ["b"]),
        helper.make_node("Relu", ["b"], ["r"]),
        helper.make_node("ConvTranspose", ["r", "wt"], ["t"], strides=[2, 2]),
        helper.make_node("Reshape", ["t", "flat"], ["f"]),
        helper.make_node("MatMul", ["f", "fc"], ["m"]),
        helper.make_node("Softmax", ["m"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "prefixes",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


PASSES = [p.name for p in [*graph_passes(), *kernel_passes()]]


@pytest.mark.parametrize("k", range(len(PASSES) + 1), ids=["none", *PASSES])
def test_every_prefix_compiles_the_rest(k: int) -> None:
    result = import_model(every_graph_pass_model(), source="prefixes.onnx")
    x = np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype(np.float32)
    (want,) = run_reference(result.module.clone(), [x], result.weights)
    store = WeightStore(result.weights)
    ctx = make_context()
    module = result.module
    PassPipeline(with_weights([*graph_passes(), *kernel_passes()][:k], store)).apply(ctx, module)
    module = parse_module(make_context(), print_module(module), "prefix.mlir")
    verify(module)
    # before tg-fuse the graph passes simply run again (each leaves alone what it already
    # did); from tg-fuse on, the IR says how far it has come, except for
    # kernel-simplify-indices, which leaves no mark and simply runs again (it is idempotent)
    fused = PASSES.index("tg-fuse")
    expected = set(PASSES[:k]) if k > fused else set()
    if PASSES[k - 1] == "kernel-simplify-indices":
        expected.discard("kernel-simplify-indices")
    assert passes_done(module) == expected
    executable, _ = compile_for_cpu(module, store, threads=2)
    try:
        (got,) = executable.run([x])
    finally:
        executable.close()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
