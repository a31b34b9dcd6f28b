"""Every example model compiles for the CPU and matches the reference semantics and
onnxruntime: max |error| <= 1e-4 * max |expected| (float32), on seeded random inputs.
These are the models `python -m tessel.bench.cpu_models` times, at their real sizes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.reference.interpreter import run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "models"
sys.path.insert(0, str(EXAMPLES))

MODELS = ["resnet18", "mobilenet_v1", "transformer", "dqn", "dcgan"]


@pytest.mark.parametrize("name", MODELS)
def test_model_matches_reference_and_onnxruntime(name):
    model = __import__(name).build()
    rng = np.random.default_rng(7)
    feed = {
        vi.name: rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
        for vi in model.graph.input
    }
    inputs = list(feed.values())
    result = import_model(model, source=f"{name}.onnx")
    reference = run(result.module.clone(), inputs, result.weights)
    executable, report = compile_for_cpu(result.module, result.weights, threads=2)
    got = executable.run(inputs)
    executable.close()
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    theirs = session.run(None, feed)
    assert report.kernels > 0
    for g, r, t in zip(got, reference, theirs):
        assert g.shape == r.shape == t.shape
        for oracle, want in (("reference", r), ("onnxruntime", t)):
            error = float(np.abs(g - want).max()) / float(np.abs(want).max())
            assert error <= 1e-4, f"{name}: relative error {error:.2e} against {oracle}"
