"""DFT and STFT beyond the ONNX node tests: every combination of inverse and onesided,
real and complex input, a DFT length that pads or truncates, odd lengths, a non-default
axis, a complex STFT with a window; against numpy's FFT in float64 (the transforms are
matmuls with constant twiddles, so the reference target is exact to rounding) and, for a
few, compiled for the CPU."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.reference.interpreter import run


def _model(node, inputs: dict[str, np.ndarray], consts: dict[str, np.ndarray], opset: int = 20):
    graph = helper.make_graph(
        [node],
        "signal",
        [helper.make_tensor_value_info(k, TensorProto.DOUBLE, list(v.shape)) for k, v in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _complex(x: np.ndarray) -> np.ndarray:
    return x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0]


def _parts(z: np.ndarray) -> np.ndarray:
    return np.stack([z.real, z.imag], axis=-1)


CASES = [
    # (parts, length, axis, dft_length, inverse, onesided)
    (1, 8, 1, None, False, False),
    (2, 7, 1, None, False, False),
    (1, 9, 2, None, False, True),
    (2, 6, 1, 10, False, False),  # zero padded
    (2, 10, 2, 6, True, False),  # truncated, inverse
    (2, 6, 1, 10, True, True),  # irfft, even length
    (2, 5, 1, 9, True, True),  # irfft, odd length
    (1, 8, 1, None, True, False),  # inverse of a real signal
]


@pytest.mark.parametrize("parts,length,axis,n,inverse,onesided", CASES)
def test_dft_matches_numpy(parts: int, length: int, axis: int, n: int | None, inverse: bool, onesided: bool) -> None:
    rng = np.random.default_rng(length * 10 + parts)
    shape = [2, length, 3, parts] if axis == 1 else [2, 3, length, parts]
    x = rng.standard_normal(shape)
    consts = {"axis": np.asarray(axis, np.int64)}
    names = ["x", "", "axis"]
    if n is not None:
        consts["n"] = np.asarray(n, np.int64)
        names[1] = "n"
    node = helper.make_node("DFT", names, ["y"], inverse=int(inverse), onesided=int(onesided))
    result = import_model(_model(node, {"x": x}, consts))
    got = run(result.module, [x], result.weights)[0]
    z = _complex(x)
    size = n if n is not None else (2 * (length - 1) if inverse and onesided else length)
    if inverse and onesided:
        want = np.fft.irfft(z, n=size, axis=axis)[..., None]
    elif inverse:
        want = _parts(np.fft.ifft(z, n=size, axis=axis))
    else:
        full = np.fft.fft(z, n=size, axis=axis)
        want = _parts(np.take(full, range(size // 2 + 1), axis=axis) if onesided else full)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_dft_opset_17_axis_attribute_compiled() -> None:
    x = np.random.default_rng(0).standard_normal((1, 4, 6, 2)).astype(np.float32)
    node = helper.make_node("DFT", ["x"], ["y"], axis=2)
    graph = helper.make_graph(
        [node], "dft", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )  # fmt: skip
    result = import_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    want = _parts(np.fft.fft(_complex(x.astype(np.float64)), axis=2))
    reference = run(result.module.clone(), [x], result.weights)[0]
    executable, _ = compile_for_cpu(result.module, result.weights, threads=1)
    try:
        compiled = executable.run([x])[0]
    finally:
        executable.close()
    for got in (reference, compiled):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("parts,onesided", [(1, True), (2, False)])
def test_stft_matches_numpy(parts: int, onesided: bool) -> None:
    rng = np.random.default_rng(parts)
    signal = rng.standard_normal((2, 40, parts))
    window = rng.uniform(0.5, 1.0, 8)
    step, frame = 3, 8
    node = helper.make_node("STFT", ["signal", "step", "window", "frame"], ["y"], onesided=int(onesided))
    consts = {"step": np.asarray(step, np.int64), "frame": np.asarray(frame, np.int64)}
    result = import_model(_model(node, {"signal": signal, "window": window}, consts, opset=17))
    got = run(result.module, [signal, window], result.weights)[0]
    z = _complex(signal)
    frames = np.stack([z[:, f * step : f * step + frame] * window for f in range(1 + (40 - frame) // step)], axis=1)
    spectrum = np.fft.fft(frames, axis=-1)
    want = _parts(spectrum[..., : frame // 2 + 1] if onesided else spectrum)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
