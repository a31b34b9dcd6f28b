"""The zoo's small variants, exported from code by PyTorch's exporter as users do (opset
17, dynamic batch and sequence axes), import and match onnxruntime on the reference and
CPU targets: max |a - e| / max |e| <= 1e-4 (examples/zoo/check.py). `make zoo` checks the
full-size models, the vision ones included (torchvision lives in the zoo's own venv).

The exports are cached in .cache/zoo-small, keyed by the torch and transformers versions
and the zoo's source, so a second run only checks.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
import transformers
from onnx import helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "examples" / "zoo"
sys.path.insert(0, str(ZOO))

import check  # noqa: E402

# torch, transformers and plain-PyTorch models: what the test venv can build
MODELS = [
    "bert",
    "distilbert",
    "gpt2",
    "t5_encoder",
    "llama",
    "whisper_encoder",
    "wav2vec2",
    "lstm_tagger",
    "gru_classifier",
    "m5_audio",
]


def _exported() -> Path:
    source = b"".join((ZOO / f).read_bytes() for f in ("models.py", "export.py"))
    key = hashlib.sha256(source + f"{torch.__version__}|{transformers.__version__}".encode()).hexdigest()[:12]
    folder = ROOT / ".cache" / "zoo-small" / key
    index = folder / "index.json"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist: one worker exports, the others wait
        if not index.exists() or set(json.loads(index.read_text())) < set(MODELS):
            command = [sys.executable, str(ZOO / "export.py"), "--out", str(folder), "--small", *MODELS]
            done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
            assert done.returncode == 0, done.stderr[-3000:]
    return folder


@pytest.fixture(scope="module")
def zoo() -> tuple[Path, dict]:
    folder = _exported()
    return folder, json.loads((folder / "index.json").read_text())


@pytest.mark.parametrize("name", MODELS)
def test_zoo_model_matches_onnxruntime(zoo: tuple[Path, dict], name: str) -> None:
    folder, index = zoo
    row = check.check(folder / f"{name}.onnx", index[name], ["reference", "cpu"], runs=0, threads=2)
    assert row.passed, f"{name}: import {row.imported}, reference {row.reference}, cpu {row.cpu}: {row.errors}"


def test_int8_outputs_are_compared_in_steps() -> None:
    """A QDQ model's float outputs are multiples of the last DequantizeLinear's scale: the
    int8 row counts steps of it, not a relative error (one step of a 0.5 scale is 0.5)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    scale, zero = numpy_helper.from_array(np.float32(0.5), "s"), numpy_helper.from_array(np.int8(0), "z")
    graph = helper.make_graph(
        [
            helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
            helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"]),
        ],
        "qdq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        [scale, zero],
    )
    steps = check.output_steps(helper.make_model(graph))
    assert steps == [0.5]
    y = np.asarray([0.0, 0.5, -1.0, 3.5], np.float32)
    assert check.verdict([y], [y], "int8", steps) == "ok (exact)"
    assert check.verdict([y + 0.5], [y], "int8", steps) == "ok (1 step)"
    assert check.verdict([y - 1.0], [y], "int8", steps) == "off by 2 steps"


def _small_qdq_resnet_block(tmp_path: Path) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """conv -> relu -> conv, plus the input (a residual add), relu: quantized by onnxruntime's
    static quantizer (QDQ, int8 weights per channel), as the zoo's int8 model is."""
    from onnx import TensorProto
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    rng = np.random.default_rng(7)
    w1 = numpy_helper.from_array(rng.normal(0, 0.3, (8, 8, 3, 3)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.normal(0, 0.3, (8, 8, 3, 3)).astype(np.float32), "w2")
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c1"], ["r1"]),
            helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
            helper.make_node("Add", ["c2", "x"], ["a"]),
            helper.make_node("Relu", ["a"], ["y"]),
        ],
        "block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 16, 16])],
        [w1, w2],
    )
    float_path, int8_path = tmp_path / "block.onnx", tmp_path / "block_int8.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), float_path)
    batches = [{"x": rng.normal(0, 1, (1, 8, 16, 16)).astype(np.float32)} for _ in range(4)]

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.items = iter(batches)

        def get_next(self) -> dict | None:
            return next(self.items, None)

    quantize_static(
        str(float_path), str(int8_path), Reader(), quant_format=QuantFormat.QDQ,
        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True,
    )  # fmt: skip
    return onnx.load(str(int8_path)), {"x": rng.normal(0, 1, (1, 8, 16, 16)).astype(np.float32)}


def test_every_quantized_layer_is_within_one_step_of_onnxruntime(tmp_path: Path) -> None:
    """examples/zoo/int8_layers.py: each quantized activation, computed by Tessel from
    onnxruntime's own inputs to its layer, is within one step of onnxruntime's, and a step
    apart only where the exact value is within float32 rounding of a tie."""
    import int8_layers

    model, feed = _small_qdq_resnet_block(tmp_path)
    nodes = int8_layers.quantized_activations(model)
    boundaries = {n.output[0] for n in nodes} | {"x"}
    # the layer of the residual add's quantize reads both quantized tensors it adds
    added = next(n.output[0] for n in model.graph.node if n.op_type == "Add")
    add_q = next(n for n in nodes if n.input[0] == added)
    assert len(int8_layers.layer_inputs(model, add_q, boundaries)) == 2
    rows = int8_layers.compare(model, feed, ["reference", "cpu"])
    assert len(rows) == 2 * len(nodes) and len(nodes) >= 4
    assert all(r.steps <= 1 and r.tie_distance < 1e-3 for r in rows), rows
