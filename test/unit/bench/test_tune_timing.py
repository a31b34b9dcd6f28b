"""`python -m tessel.bench.tune_timing`: every stage a small conv net launches alone is
timed the three ways tessel-tune can time a candidate, and the RESULT line scores each."""

from __future__ import annotations

import re

import onnx
import pytest

import tessel.bench.tune_timing as tune_timing

from ..tune.test_in_model import SHAPES, conv_net


def test_every_way_of_timing_is_scored(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "conv_net.onnx"
    onnx.save(conv_net(), path)
    shape = ",".join(str(d) for d in SHAPES["x"])
    assert tune_timing.main([str(path), "--input-shape", f"x={shape}", "--runs", "3"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"RESULT tune_timing cold=(\S+) warm=(\S+) in_model=(\S+) stages=(\d+)", out)
    assert m, out[-2000:]
    assert int(m.group(4)) >= 2 and all(float(x) >= 0 for x in m.groups()[:3])
    assert out.count("in the model") >= int(m.group(4))
