"""tessel.compile and CompiledModel: calls by position and name, the signature, errors in
one line, benchmark and profile, `python -m tessel`, and a cheap `import tessel`."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import tessel
from tessel.runtime.errors import TesselError


def _x(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((1, 3, 8, 8)).astype(np.float32)


@pytest.mark.parametrize("fixture", ["compiled_1", "compiled_2"])
def test_call_matches_onnx_reference(fixture: str, request: pytest.FixtureRequest, oracle) -> None:
    model = request.getfixturevalue(fixture)
    x = _x(1)
    by_position, by_name = model(x), model(x=x)
    assert list(by_position) == ["y"]
    np.testing.assert_allclose(by_position["y"], oracle(x), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(by_position["y"], by_name["y"])


def test_signature(compiled_1) -> None:
    (x,), (y,) = compiled_1.inputs, compiled_1.outputs
    assert (x.name, x.shape, x.dtype) == ("x", (1, 3, 8, 8), np.dtype(np.float32))
    assert (y.name, y.shape, y.dtype) == ("y", (1, 10), np.dtype(np.float32))
    assert "x: float32[1, 3, 8, 8]" in repr(compiled_1)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m(np.zeros((1, 3, 8, 9), np.float32)), "input 'x' is float32[1, 3, 8, 9], the model takes float32"),
        (lambda m: m(np.zeros((1, 3, 8, 8), np.float64)), "input 'x' is float64[1, 3, 8, 8]"),
        (lambda m: m(z=np.zeros(3)), "no model input named z (inputs: x)"),
        (lambda m: m(), "input 'x' is missing"),
        (lambda m: m(1, 2), "the model takes 1 inputs, 2 were given"),
    ],
)
def test_bad_inputs_are_one_line_errors(compiled_1, call, message: str) -> None:
    with pytest.raises(TesselError) as err:
        call(compiled_1)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_bad_arguments_to_compile(small) -> None:
    with pytest.raises(TesselError, match="unknown target 'tpu'"):
        tessel.compile(small, target="tpu")
    with pytest.raises(TesselError, match="threads must be at least 1"):
        tessel.compile(small, threads=0)
    with pytest.raises(TesselError, match="not an ONNX model"):
        tessel.compile(b"not a model")
    with pytest.raises(TesselError, match="cannot read /no/such.onnx"):
        tessel.compile("/no/such.onnx")


def test_compile_from_bytes_and_path(small, tmp_path, oracle) -> None:
    path = tmp_path / "small.onnx"
    path.write_bytes(small.SerializeToString())
    x = _x(2)
    for source in (small.SerializeToString(), str(path), path):
        np.testing.assert_allclose(tessel.compile(source, threads=1)(x)["y"], oracle(x), rtol=1e-4, atol=1e-4)


def test_benchmark_and_profile(compiled_2) -> None:
    timing = compiled_2.benchmark(5)
    assert timing.runs == 5 and 0 < timing.min_ms <= timing.median_ms <= timing.max_ms
    rows = compiled_2.profile(3)
    assert [r.kernel for r in rows] == [launch["name"] for launch in compiled_2.plan["launches"]]
    assert any("conv2d" in r.kernel for r in rows) and all(r.median_ms > 0 for r in rows)


def test_python_m_tessel_reports_version_targets_and_parts() -> None:
    out = subprocess.run([sys.executable, "-m", "tessel"], capture_output=True, text=True, check=True).stdout
    assert out.startswith(f"tessel {tessel.__version__} ")
    for word in ("cpu", "gpu", "vta", "seal", "nccl", "SEAL", "onnxruntime", "CUDA", "Ray", "C compiler"):
        assert word in out


def test_import_tessel_is_cheap() -> None:
    code = "import sys, tessel; tessel.__version__; print(sorted(m for m in ('xdsl', 'llvmlite', 'onnx', 'numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['numpy']"  # the version lives in tessel.runtime, which needs numpy


def test_version_matches_pyproject() -> None:
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml").read_text())
    assert pyproject["project"]["version"] == tessel.__version__


def test_input_shapes_fix_symbolic_dimensions() -> None:
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    compiled = tessel.compile(model, threads=1, input_shapes={"x": [3, 4]})
    assert compiled.inputs[0].shape == (3, 4) and compiled.outputs[0].shape == (3, 4)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(compiled(x)["y"], np.maximum(x, 0))
    with pytest.raises(TesselError, match="no input 'z'"):
        tessel.compile(model, input_shapes={"z": [1]})
