"""RNN, GRU and LSTM unrolled into tg ops (frontends/onnx/ops_rnn.py) against onnxruntime,
on what the ONNX node tests leave out: sequence lengths shorter than the sequence (forward,
reverse, bidirectional; a row of length 0), activations with parameters, clip,
input_forget, linear_before_reset and initial states in both layouts. onnxruntime is the
oracle because ONNX's reference ignores sequence_lens, activations and clip."""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from tessel.frontends.onnx import import_model
from tessel.targets.reference.interpreter import run

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _model(kind: str, steps: int, batch: int, features: int, hidden: int, lengths, attrs: dict, layout: int = 0):
    directions = 2 if attrs.get("direction") == "bidirectional" else 1
    g = GATES[kind]
    rng = np.random.default_rng(7)
    inits = {
        "W": rng.uniform(-0.5, 0.5, (directions, g * hidden, features)).astype(np.float32),
        "R": rng.uniform(-0.5, 0.5, (directions, g * hidden, hidden)).astype(np.float32),
        "B": rng.uniform(-0.5, 0.5, (directions, 2 * g * hidden)).astype(np.float32),
        "sequence_lens": np.asarray(lengths, np.int32),
    }
    state = (directions, batch, hidden)
    inits["initial_h"] = rng.uniform(-1, 1, state).astype(np.float32).transpose(*((1, 0, 2) if layout else (0, 1, 2)))
    inputs = ["X", "W", "R", "B", "sequence_lens", "initial_h"]
    if kind == "LSTM":
        inits["initial_c"] = (
            rng.uniform(-1, 1, state).astype(np.float32).transpose(*((1, 0, 2) if layout else (0, 1, 2)))
        )
        inits["P"] = rng.uniform(-0.5, 0.5, (directions, 3 * hidden)).astype(np.float32)
        inputs += ["initial_c", "P"]
    outputs = ["Y", "Y_h"] + (["Y_c"] if kind == "LSTM" else [])
    node = helper.make_node(kind, inputs, outputs, hidden_size=hidden, layout=layout, **attrs)
    x_shape = (steps, batch, features)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, (batch, steps, features) if layout else x_shape)],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    x = rng.uniform(-1, 1, x_shape).astype(np.float32)
    return model, x.transpose(1, 0, 2) if layout else x


def _check(model, x) -> None:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"X": x})
    result = import_model(model)
    got = run(result.module, [x], result.weights)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


CASES = [
    ("RNN", {"direction": "forward"}, [4, 2, 0]),
    ("RNN", {"direction": "reverse"}, [4, 2, 1]),
    ("GRU", {"direction": "bidirectional"}, [3, 4, 1]),
    ("GRU", {"direction": "forward", "linear_before_reset": 1}, [4, 4, 4]),
    ("GRU", {"direction": "reverse", "linear_before_reset": 1}, [2, 4, 3]),
    ("LSTM", {"direction": "forward"}, [4, 1, 3]),
    ("LSTM", {"direction": "bidirectional"}, [2, 4, 3]),
    ("LSTM", {"direction": "forward", "clip": 0.3}, [4, 4, 4]),
    ("LSTM", {"direction": "forward", "input_forget": 1}, [4, 3, 4]),
    ("RNN", {"activations": ["LeakyRelu"], "activation_alpha": [0.2]}, [4, 4, 4]),
    (
        "GRU",
        {"activations": ["HardSigmoid", "ScaledTanh"], "activation_alpha": [0.3, 0.7], "activation_beta": [0.4, 1.5]},
        [4, 4, 4],
    ),
    (
        "LSTM",
        {"activations": ["Sigmoid", "Affine", "Softsign"], "activation_alpha": [0.5], "activation_beta": [0.1]},
        [4, 4, 4],
    ),
    ("RNN", {"activations": ["Relu"]}, [4, 4, 4]),
]


@pytest.mark.parametrize(("kind", "attrs", "lengths"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_recurrent_matches_onnxruntime(kind: str, attrs: dict, lengths: list[int]) -> None:
    _check(*_model(kind, 4, 3, 5, 6, lengths, attrs))


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_batch_first_layout_with_lengths(kind: str) -> None:
    """onnxruntime has no layout 1: the same layer in layout 0 is the oracle, transposed."""
    attrs = {"direction": "bidirectional"}
    model0, x0 = _model(kind, 4, 3, 5, 6, [4, 2, 3], attrs)
    model1, x1 = _model(kind, 4, 3, 5, 6, [4, 2, 3], attrs, layout=1)
    session = onnxruntime.InferenceSession(model0.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"X": x0})
    result = import_model(model1)
    got = run(result.module, [x1], result.weights)
    perms = [(2, 0, 1, 3)] + [(1, 0, 2)] * (len(expected) - 1)
    for g, e, perm in zip(got, expected, perms, strict=True):
        np.testing.assert_allclose(g, e.transpose(perm), rtol=1e-5, atol=1e-5)
