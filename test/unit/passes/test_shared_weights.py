"""A weight that many kernels read is one array in memory, 64-byte aligned: an unrolled
LSTM's recurrent matrix (transposed and packed once per time step before the fix) is
folded once, stored C-ordered, and read by every step from the same memory; the executor
places weights on cache-line boundaries. And a dense layer whose columns no vector of 8
divides (17 tags) runs vectorized on the padded block, sliced. Differential: onnx.reference.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu

RNG = np.random.default_rng(7)


def lstm(steps: int = 12, hidden: int = 32, tags: int = 17) -> onnx.ModelProto:
    """x [steps, 1, 16] -> LSTM(hidden) -> [steps, hidden] @ W [hidden, tags] + b."""
    init = [
        numpy_helper.from_array((RNG.standard_normal((1, 4 * hidden, 16)) * 0.3).astype(np.float32), "W"),
        numpy_helper.from_array((RNG.standard_normal((1, 4 * hidden, hidden)) * 0.3).astype(np.float32), "R"),
        numpy_helper.from_array((RNG.standard_normal((hidden, tags)) * 0.3).astype(np.float32), "head"),
        numpy_helper.from_array(RNG.standard_normal(tags).astype(np.float32), "bias"),
        numpy_helper.from_array(np.array([steps, hidden], np.int64), "shape"),
    ]
    nodes = [
        helper.make_node("LSTM", ["x", "W", "R"], ["Y"], hidden_size=hidden),
        helper.make_node("Reshape", ["Y", "shape"], ["h"]),
        helper.make_node("MatMul", ["h", "head"], ["m"]),
        helper.make_node("Add", ["m", "bias"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "lstm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [steps, 1, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [steps, tags])],
        init,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_recurrent_weights_are_one_aligned_array() -> None:
    proto = lstm()
    x = RNG.standard_normal((12, 1, 16)).astype(np.float32)
    want = ReferenceEvaluator(proto).run(None, {"x": x})[0]
    result = import_model(proto)
    executable, _ = compile_for_cpu(result.module, result.weights, threads=2)
    try:
        np.testing.assert_allclose(executable.run([x])[0], want, rtol=1e-4, atol=1e-5)
        # the recurrent products: one packed matrix, the same memory at every step
        big = {
            executable.keep[s].ctypes.data
            for launch in executable.launches
            if "dense_packed" in launch.name
            for s in launch.args
            if isinstance(s, int) and executable.keep[s].shape == (8, 32, 16)
        }
        assert len(big) == 1, big
        weights = [a for a in executable._globals.values() if a.size]
        assert weights and all(a.ctypes.data % 64 == 0 and a.flags.c_contiguous for a in weights)
        # every product is vectorized, the 17-tag head included (32 columns, sliced)
        dense = {
            f.sym_name.data: f.attributes["kernel.schedule"].data
            for f in executable.funcs.values()
            if "kernel.schedule" in f.attributes and "dense" in f.sym_name.data
        }
        assert any("12x32xf32" in str(executable.funcs[n].function_type) for n in dense), dense
        assert all("vector" in schedule for schedule in dense.values()), dense
    finally:
        executable.close()
