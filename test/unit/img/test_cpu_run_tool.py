"""tessel-run --target cpu on img modules: PNG in and out, --check, --bayer, errors."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from tessel.frontends.img_examples import pipeline_text
from tessel.tools.run import main


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 256, (24, 40, 3)).astype(np.uint8)).save(tmp_path / "in.png")
    for name in ("unsharp", "isp_lite"):
        for t in ("u8", "f32"):
            (tmp_path / f"{name}_{t}.mlir").write_text(pipeline_text(name, t, 24, 40))
    return tmp_path


@pytest.mark.parametrize("t", ["u8", "f32"])
def test_image_in_image_out_checked(files, capsys, t: str) -> None:
    out = files / "out.png"
    rc = main(
        [
            str(files / f"unsharp_{t}.mlir"),
            "--target",
            "cpu",
            "--image",
            str(files / "in.png"),
            "-o",
            str(out),
            "--check",
            "--time",
            "3",
            "--report",
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0, text
    assert (
        "largest difference to the numpy reference 0" in text and "megapixels/s" in text and "analytic minimum" in text
    )
    assert Image.open(out).size == (40, 24)


def test_bayer_planes_make_an_rgb_image(files, capsys) -> None:
    out = files / "rgb.png"
    assert (
        main(
            [
                str(files / "isp_lite_u8.mlir"),
                "--target",
                "cpu",
                "--image",
                str(files / "in.png"),
                "--bayer",
                "-o",
                str(out),
                "--check",
            ]
        )
        == 0
    )
    im = Image.open(out)
    assert im.mode == "RGB" and im.size == (10, 6)


def test_wrong_size_is_one_line(files, capsys) -> None:
    Image.fromarray(np.zeros((10, 10), np.uint8)).save(files / "small.png")
    rc = main([str(files / "unsharp_u8.mlir"), "--target", "cpu", "--image", str(files / "small.png")])
    err = capsys.readouterr().err
    assert rc != 0 and err.count("\n") == 1 and "takes 24x40 (pass --resize" in err
    assert (
        main([str(files / "unsharp_u8.mlir"), "--target", "cpu", "--image", str(files / "small.png"), "--resize"]) == 0
    )


def test_partition_prints_every_cut_and_the_choice(capsys, tmp_path) -> None:
    from pathlib import Path

    face = Path(__file__).resolve().parents[3] / "examples" / "img" / "camera" / "face_auth.mlir"
    out = tmp_path / "cut.mlir"
    assert (
        main(
            [
                str(face),
                "--target",
                "cpu",
                "--partition",
                "--platform",
                "mcu",
                "--link",
                "backscatter",
                "--dump-ir",
                str(out),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    chosen = [line for line in text.splitlines() if "<- chosen" in line]
    assert "partition on mcu" in text and len(chosen) == 1 and "%roi (img.crop)" in chosen[0]
    assert "img.transmit %roi" in out.read_text()


def test_partition_errors_are_one_line(files, capsys) -> None:
    rc = main([str(files / "unsharp_u8.mlir"), "--target", "cpu", "--partition"])
    err = capsys.readouterr().err
    assert rc != 0 and err.count("\n") == 1 and "needs a camera pipeline" in err
    from pathlib import Path

    face = Path(__file__).resolve().parents[3] / "examples" / "img" / "camera" / "face_auth.mlir"
    rc = main([str(face), "--target", "cpu", "--partition", "--link", "carrier-pigeon"])
    err = capsys.readouterr().err
    assert rc != 0 and err.count("\n") == 1 and "unknown link 'carrier-pigeon'" in err
