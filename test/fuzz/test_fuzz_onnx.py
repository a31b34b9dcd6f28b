"""Differential fuzzing against onnxruntime: random ONNX graphs (onnx_graphs.py) over the
operators and element types of real exported models, imported by Tessel and run on the
reference target and compiled for the CPU, must compute what onnxruntime computes.

Values that onnx_graphs marks exact (computed only by correctly rounded operations and data
movement) must match bit for bit, NaN for NaN; the others within 1e-4 of the largest
magnitude of the output (the zoo's criterion), as two float implementations differ by rounding.
onnxruntime runs with its graph optimizations off: each op as the graph writes it.
A model onnxruntime itself refuses (an element type its CPU kernels lack) is discarded.
"""

from __future__ import annotations

from profile import fuzz

import numpy as np
import onnx
import onnxruntime as ort
from hypothesis import given, reject
from onnx_graphs import Case, onnx_graphs

from tessel.frontends.onnx import import_model
from tessel.targets.reference.interpreter import run as run_reference


def onnxruntime_run(case: Case) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    # onnxruntime's graph optimizations may change what a graph computes (its double-QDQ
    # remover drops a requantization to another scale); the oracle is each op as written
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        session = ort.InferenceSession(case.model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as err:  # noqa: BLE001 - onnxruntime lacks a kernel: not a Tessel case
        if "NOT_IMPLEMENTED" in str(err) or "Could not find an implementation" in str(err):
            reject()
        raise
    return session.run(None, case.feed)


def assert_matches(got: list[np.ndarray], want: list[np.ndarray], exact: list[bool], target: str) -> None:
    assert len(got) == len(want), f"{target}: {len(got)} outputs, onnxruntime {len(want)}"
    for i, (g, w, bitwise) in enumerate(zip(got, want, exact, strict=True)):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (
            f"{target} output {i}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        )
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        if bitwise:
            assert same.all(), (
                f"{target} output {i} (exact): {np.argwhere(~same)[:5].tolist()} {g[~same][:5]} vs {w[~same][:5]}"
            )
            continue
        finite = np.isfinite(w)
        assert (same | finite).all(), f"{target} output {i}: non-finite values differ"
        scale = max(float(np.abs(w[finite]).max(initial=0.0)), 1e-3)
        err = float(np.abs(g[finite].astype(np.float64) - w[finite]).max(initial=0.0)) / scale
        assert err <= 1e-4, f"{target} output {i}: max|a-e|/max|e| = {err:.3g}"


@fuzz(ci=12, long=3000)
@given(onnx_graphs())
def test_onnx_graphs_match_onnxruntime(case: Case) -> None:
    onnx.checker.check_model(case.model)
    onnx.shape_inference.infer_shapes(case.model, strict_mode=True)  # the generator's own shapes
    want = onnxruntime_run(case)
    exact = case.exact
    inputs = [case.feed[i.name] for i in case.model.graph.input]
    result = import_model(case.model, source="fuzz.onnx")
    assert_matches(run_reference(result.module.clone(), inputs, result.weights), want, exact, "reference")

    from tessel.pipelines.tensor import compile_for_cpu

    executable, _ = compile_for_cpu(result.module, result.weights, threads=1)
    try:
        assert_matches(executable.run(inputs), want, exact, "cpu")
    finally:
        executable.close()
