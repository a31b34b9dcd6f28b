"""Names as exporters write them survive every pass and every target.

PyTorch names folded initializers `onnx::Conv_498` and values `/layer1/0/conv1/Conv_output_0`;
other exporters use spaces, `:`, leading digits and unicode, and two names may become the
same SSA name once sanitized. Such a model must import, print and parse back, and run on
the reference, the kernel IR, the CPU and the GPU emulator with the same results as
onnxruntime; an int8 layer whose weights carry such names must run on VTA. (Regression:
the CPU target stopped with `Invalid OpResult name format 'onnx::Conv_498'`.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from tessel.dialects.context import make_context
from tessel.dialects.kernel.reference import run_kernel_module
from tessel.frontends.onnx import import_model
from tessel.ir.names import ssa_name
from tessel.ir.source import parse_module, print_module, verify
from tessel.pipelines.tensor import compile_for_cpu, compile_for_gpu, lower
from tessel.targets.reference.interpreter import run as run_reference

# Large enough that the importer keeps them as weights (small ones are inlined constants).
C = 64
NAMES = {
    "input": "input:0",
    "w1": "onnx::Conv_498",
    "b1": "onnx::Conv_499",
    "gamma": "bn.weight",
    "w2": "1st weight: ü",
    "w3": "1st_weight___",
    "fc": "onnx::MatMul_7",
    "conv1": "/layer1/0/conv1/Conv_output_0",
    "bn": "/layer1/0/bn1/BatchNormalization_output_0",
    "relu": "a b",
    "conv2": "a:b",
    "conv3": "a_b",
    "add": "sum 1",
    "flat": "9flat",
    "output": "out/put:0",
}


def exporter_named_model() -> onnx.ModelProto:
    n = NAMES
    rng = np.random.default_rng(0)

    def init(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    def positive(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.uniform(0.5, 1.5, shape).astype(np.float32), name)

    inits = [
        init(n["w1"], C, 3, 3, 3),
        init(n["b1"], C),
        positive(n["gamma"], C),
        init("bn.bias", C),
        init("bn.running_mean", C),
        positive("bn.running_var", C),
        init(n["w2"], C, C, 1, 1),
        init(n["w3"], C, C, 1, 1),
        init(n["fc"], C * 16, 10),
        numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "onnx::Reshape_shape"),
    ]
    nodes = [
        helper.make_node(
            "Conv", [n["input"], n["w1"], n["b1"]], [n["conv1"]], pads=[1, 1, 1, 1], name="/layer1/0/conv1/Conv"
        ),
        helper.make_node(
            "BatchNormalization",
            [n["conv1"], n["gamma"], "bn.bias", "bn.running_mean", "bn.running_var"],
            [n["bn"]],
            name="/layer1/0/bn1/BatchNormalization",
        ),
        helper.make_node("Relu", [n["bn"]], [n["relu"]], name="relu 1"),
        helper.make_node("Conv", [n["relu"], n["w2"]], [n["conv2"]], name="c:2"),
        helper.make_node("Conv", [n["conv2"], n["w3"]], [n["conv3"]], name="c_2"),
        helper.make_node("Add", [n["conv2"], n["conv3"]], [n["add"]], name="add"),
        helper.make_node("Reshape", [n["add"], "onnx::Reshape_shape"], [n["flat"]], name="/Reshape"),
        helper.make_node("MatMul", [n["flat"], n["fc"]], [n["output"]], name="/fc/MatMul"),
    ]
    graph = helper.make_graph(
        nodes,
        "exporter names",
        [helper.make_tensor_value_info(n["input"], TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info(n["output"], TensorProto.FLOAT, [1, 10])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


@pytest.fixture(scope="module")
def case():
    model = exporter_named_model()
    x = np.random.default_rng(1).standard_normal((1, 3, 4, 4)).astype(np.float32)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {NAMES["input"]: x})
    return model, x, expected


def _imported(model: onnx.ModelProto):
    result = import_model(model, source="names.onnx")
    # The weights stay weights under their exporter names (so the targets see them).
    assert NAMES["w1"] in result.weights and NAMES["w2"] in result.weights
    return result


def _close(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape
    error = float(np.abs(got - expected).max()) / float(np.abs(expected).max())
    assert error <= 1e-4, error


def _cpu(module, x, weights):
    executable, _ = compile_for_cpu(module, weights, threads=2)
    try:
        return executable.run([x])
    finally:
        executable.close()


def _gpu_emulated(module, x, weights):
    executable, _ = compile_for_gpu(module, weights, emulate=True, threads=2)
    try:
        return executable.run([x])
    finally:
        executable.close()


def _kernels(module, x, weights):
    store, _ = lower(module, weights, stop_after="tg-to-kernel")
    return run_kernel_module(module, [x], store)


@pytest.mark.parametrize(
    "runner", [run_reference, _kernels, _cpu, _gpu_emulated], ids=["reference", "kernels", "cpu", "gpu-emulated"]
)
def test_every_target_runs_exporter_names(case, runner):
    model, x, expected = case
    result = _imported(model)
    (got,) = runner(result.module, [x] if runner is run_reference else x, result.weights)
    _close(got, expected)


def test_text_round_trip_then_cpu(case):
    model, x, expected = case
    result = _imported(model)
    text = print_module(result.module)
    assert '@"onnx::Conv_498"' in text and "%onnx__Conv" in text
    module = parse_module(make_context(), text, "names.mlir")
    verify(module)
    # the output's ONNX name is kept as its name, whatever SSA name it printed as
    assert 'tg.name = "out/put:0"' in text
    (got,) = _cpu(module, x, result.weights)
    _close(got, expected)


@pytest.mark.parametrize(
    "text, name",
    [
        ("onnx::Conv_498", "onnx__Conv_498"),  # xDSL then drops the _498 suffix
        ("/layer1/0/conv1/Conv_output_0", "layer1_0_conv1_Conv_output_0"),
        ("9flat", "v9flat"),
        ("a b", "a_b"),
        ("ü", "v"),
        ("", "v"),
    ],
)
def test_ssa_name(text, name):
    assert ssa_name(text) == name


INT8_LAYER = """builtin.module attributes {tg.weights = "layer.weights.npz"} {
  func.func @main(%x: tensor<1x16x6x6xi8> {tg.name = "input:0"}) -> (tensor<1x16x6x6xi8> {tg.name = "out/put:0"}) {
    %w = tg.weight @"onnx::Conv_498" : tensor<16x16x3x3xi8>
    %b = tg.weight @"9 bias/0:ü" : tensor<16xi32>
    %xi = tg.cast %x : tensor<1x16x6x6xi8> -> tensor<1x16x6x6xi32>
    %wi = tg.cast %w : tensor<16x16x3x3xi8> -> tensor<16x16x3x3xi32>
    %c = tg.conv2d %xi, %wi, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x6x6xi32>, tensor<16x16x3x3xi32>, tensor<16xi32>) -> tensor<1x16x6x6xi32>
    %r = tg.relu %c : tensor<1x16x6x6xi32>
    %s = tg.shift_right %r {amount = 8 : i64} : tensor<1x16x6x6xi32>
    %l = tg.clip %s {min = -128 : i32, max = 127 : i32} : tensor<1x16x6x6xi32>
    %y = tg.cast %l : tensor<1x16x6x6xi32> -> tensor<1x16x6x6xi8>
    func.return %y : tensor<1x16x6x6xi8>
  }
}
"""


@pytest.mark.parametrize("target", ["vta", "cpu"])
def test_int8_layer_with_exporter_weight_names(tmp_path: Path, target: str):
    rng = np.random.default_rng(3)
    np.savez(
        tmp_path / "layer.weights.npz",
        **{
            "onnx::Conv_498": rng.integers(-8, 8, (16, 16, 3, 3), dtype=np.int8),
            "9 bias/0:ü": rng.integers(-64, 64, 16, dtype=np.int32),
        },
    )
    (tmp_path / "layer.mlir").write_text(INT8_LAYER)
    tool = Path(sys.executable).with_name("tessel-run")
    done = subprocess.run(
        [str(tool), "layer.mlir", "--target", target, "--check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "check against the reference semantics: OK" in done.stdout
