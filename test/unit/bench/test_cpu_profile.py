"""`python -m tessel.bench.cpu_profile`: Tessel's per-kernel profile and onnxruntime's own
per-node trace, summed by operator family. The families are read from names on both sides
(Tessel's kernels, onnxruntime's op types): a convolution with its fused ReLU is a
convolution, a layout conversion is layout on both sides. A conv + ReLU + max-pool model
made here runs end to end and its RESULT line names both sides' families."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper, save

import tessel.bench.cpu_profile as cpu_profile


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("k3_conv2d_nchwc_relu__s0", "conv"),
        ("k1_depthwise_conv2d_nchwc__s0", "conv"),
        ("k7_winograd_output__s1", "conv"),
        ("NchwcConv", "conv"),
        ("FusedConv", "conv"),
        ("k33_dense_packed_add__s0", "matmul"),
        ("FusedMatMul", "matmul"),
        ("k0_layout_transform__s0", "layout"),
        ("ReorderInput", "layout"),
        ("Transpose", "layout"),
        ("copy", "layout"),
        ("k2_max_pool2d__s0", "pool"),
        ("GlobalAveragePool", "pool"),
        ("k9_softmax__s2", "norm"),
        ("LayerNormalization", "norm"),
        ("k4_add_relu__s0", "elementwise"),
        ("Sigmoid", "elementwise"),
    ],
)
def test_families_from_names(name: str, family: str) -> None:
    assert cpu_profile.family(name) == family


def test_a_model_profiled_both_ways(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((32, 16, 3, 3)).astype(np.float32), "w")
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[2, 2], strides=[2, 2]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 16, 28, 28])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [w],
    )
    path = tmp_path / "convpool.onnx"
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
    assert cpu_profile.main([str(path), "--input-shape", "x=1,16,28,28", "--runs", "3", "--threads", "1"]) == 0
    result = capsys.readouterr().out.strip().splitlines()[-1]
    assert result.startswith("RESULT cpu_profile model=convpool ")
    values = dict(re.findall(r"(\w+)=([\w.]+)", result))
    assert float(values["conv_ms"]) > 0 and float(values["ort_conv_ms"]) > 0
    assert float(values["tessel_ms"]) >= float(values["conv_ms"])


def test_a_dynamic_input_needs_its_shape(tmp_path: Path) -> None:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    path = tmp_path / "relu.onnx"
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
    with pytest.raises(SystemExit, match=r"input 'x' has a dynamic shape; give it with --input-shape"):
        cpu_profile.main([str(path)])
