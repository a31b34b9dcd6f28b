"""tessel.img: example pipelines built in Python compile to callables whose outputs equal the
numpy reference (bit-exact for u8, 1e-4 for f32), several outputs come back as a tuple, a
camera pipeline compiles to a program run over frames by camera name, and errors are one line."""

from __future__ import annotations

import numpy as np
import pytest

import tessel
from tessel.runtime.errors import TesselError


@pytest.mark.parametrize("name, dtype", [("box3x3", "f32"), ("sobel", "u8")])
def test_pipeline_matches_reference(name: str, dtype: str) -> None:
    pipe = tessel.img.compile(tessel.img.example(name, dtype, 48, 64), threads=2)
    (frame,) = pipe.random_frames(seed=1)
    got, want = pipe(frame), pipe.reference(frame)
    assert isinstance(got, np.ndarray) and got.shape == pipe.outputs[0].shape == (48, 64, 1)
    if dtype == "u8":
        np.testing.assert_array_equal(got, want)
    else:
        assert np.abs(got - want).max() <= 1e-4
    assert pipe.benchmark(2) > 0
    assert "line buffers" in pipe.line_buffer_report()
    pipe.close()


def test_several_outputs_are_a_tuple() -> None:
    isp = tessel.img.compile(tessel.img.example("isp_lite", "u8", 32, 32))
    frames = isp.random_frames(seed=2)
    got, want = isp(*frames), isp.reference(*frames)
    assert isinstance(got, tuple) and len(got) == 3
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_camera_program_runs_over_frames() -> None:
    from tessel.api.img import CameraProgram

    cam = tessel.img.compile("examples/img/camera/face_auth.mlir")
    assert isinstance(cam, CameraProgram)
    (name, frame), *_ = cam.sources.items()
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, frame.shape).astype(frame.dtype) for _ in range(2)]
    run = cam.run(*cam.random_images(), sources={name: frames})
    assert len(run.seconds_per_frame) == 2
    cam.close()


def test_errors_are_one_line() -> None:
    with pytest.raises(TesselError, match="unknown example"):
        tessel.img.example("nope")
    with pytest.raises(TesselError, match="no such file"):
        tessel.img.compile("missing.mlir")
    blur = tessel.img.compile(tessel.img.example("box3x3", "u8", 16, 16))
    with pytest.raises(TesselError) as err:
        blur(np.zeros((16, 15, 1), np.uint8))
    assert "\n" not in str(err.value)


def test_python_builder_matches_numpy() -> None:
    """A pipeline built in Python (a 3x3 stencil by its weights, a map written as an
    expression) computes what the same formula computes in numpy."""
    p = tessel.img.Pipeline("sharpen", height=24, width=40)
    x = p.input("x")
    blur = p.stencil(x, [[1, 2, 1], [2, 4, 2], [1, 2, 1]], scale=1 / 16)
    edge = p.map(lambda a, b: abs(a - b).sqrt(), x, blur)
    p.output(p.map(lambda a, b: (2 * a - b).clamp(0, 1), x, blur), edge)
    sharpen, edges = tessel.img.compile(p)(frame := np.random.default_rng(4).random((24, 40, 1), dtype=np.float32))
    padded = np.pad(frame[:, :, 0].astype(np.float64), 1, mode="edge")
    k = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16
    blurred = sum(k[i, j] * padded[i : i + 24, j : j + 40] for i in range(3) for j in range(3))
    np.testing.assert_allclose(sharpen[:, :, 0], np.clip(2 * frame[:, :, 0] - blurred, 0, 1), atol=1e-5)
    np.testing.assert_allclose(edges[:, :, 0], np.sqrt(np.abs(frame[:, :, 0] - blurred)), atol=1e-3)


def test_builder_errors_are_one_line() -> None:
    p = tessel.img.Pipeline("bad", height=8, width=8)
    x = p.input("x")
    with pytest.raises(TesselError, match="rectangle of odd size"):
        p.stencil(x, [[1, 1], [1, 1]])
    with pytest.raises(TesselError, match="Python comparisons"):
        p.map(lambda a: a if a > 0 else -a, x)
    with pytest.raises(TesselError, match="not a frame of pipeline @other"):
        tessel.img.Pipeline("other", height=8, width=8).map(lambda a: a, x)
    with pytest.raises(TesselError, match="needs an input and an output"):
        tessel.img.compile(p)
