"""Independent implementations to check Tessel's results against.

`onnx.reference.ReferenceEvaluator` ships with the pinned onnx package and is always
available; onnxruntime is used when installed (the `peers` extra).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnx  # (imported by the callers that hold a model: onnx takes a second to import)


@dataclass
class Comparison:
    ok: bool = True
    max_abs: float = 0.0
    max_rel: float = 0.0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        verdict = "OK" if self.ok else "MISMATCH"
        text = f"{verdict}  max abs error {self.max_abs:.3g}, relative to the output's max |value| {self.max_rel:.3g}"
        return text + ("  (" + "; ".join(self.problems) + ")" if self.problems else "")


def compare(
    actual: Mapping[str, np.ndarray], expected: Mapping[str, np.ndarray], rtol: float, atol: float
) -> Comparison:
    """Closeness relative to each output's scale: max |a - e| <= atol + rtol * max |e|.

    Element-wise relative error is meaningless for outputs near zero (a logit of 1e-3 in a
    tensor whose values reach 200); the normwise bound is what float32 rounding obeys."""
    result = Comparison()
    for name, want in expected.items():
        got = actual.get(name)
        want = np.asarray(want)
        if got is None:
            result.ok = False
            result.problems.append(f"output '{name}' missing")
            continue
        if got.shape != want.shape:
            result.ok = False
            result.problems.append(f"'{name}' has shape {list(got.shape)}, expected {list(want.shape)}")
            continue
        g, w = got.astype(np.float64), want.astype(np.float64)
        if not np.array_equal(np.isnan(g), np.isnan(w)):
            result.ok = False
            result.problems.append(f"'{name}' has NaNs where the oracle has none, or the reverse")
        both = ~(np.isnan(g) | np.isnan(w))
        if not both.any():
            continue
        diff = float(np.abs(g[both] - w[both]).max())
        scale = float(np.abs(w[both]).max())
        result.max_abs = max(result.max_abs, diff)
        result.max_rel = max(result.max_rel, diff / scale if scale else (0.0 if diff == 0 else np.inf))
        if not diff <= atol + rtol * scale:
            result.ok = False
            result.problems.append(f"'{name}' exceeds atol + rtol * max|expected| = {atol + rtol * scale:.3g}")
    return result


def onnx_oracles(
    model: onnx.ModelProto, feed: Mapping[str, np.ndarray]
) -> Iterator[tuple[str, dict[str, np.ndarray] | str]]:
    """(oracle name, outputs by name) for each available ONNX implementation; instead of
    the outputs, why it could not run the model (onnx.reference lacks some operators at
    some opsets: DequantizeLinear-17 in onnx 1.19; it fails on GoogLeNet), which the caller
    reports as not run."""
    from onnx.reference import ReferenceEvaluator

    names = [o.name for o in model.graph.output]
    graph_inputs = {i.name for i in model.graph.input} - {t.name for t in model.graph.initializer}
    feed = {k: v for k, v in feed.items() if k in graph_inputs}
    try:
        values = ReferenceEvaluator(model).run(None, dict(feed))
    except Exception as err:  # noqa: BLE001 (the oracle's own failure, whatever it raises, is not the check's)
        # besides missing operators, its own bugs: MaxPool with ceil_mode, stride 1 and
        # padding gives 30 rows for 28 (onnx 1.23), so GoogLeNet's inception concats fail
        yield "onnx.reference", f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    else:
        assert isinstance(values, list)  # (a dict only with intermediate=True)
        yield "onnx.reference", dict(zip(names, values))
    try:
        import onnxruntime
    except ImportError:
        return
    name = f"onnxruntime {onnxruntime.__version__}"
    try:
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        outputs = session.run(None, dict(feed))
    except Exception as err:  # noqa: BLE001 (as above: a model onnxruntime refuses is not the check's failure)
        yield name, f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    else:
        yield name, dict(zip(names, outputs))


def onnxruntime_session(model: onnx.ModelProto, threads: int):
    """An onnxruntime CPU session with `threads` intra-op threads, or None when not installed."""
    try:
        import onnxruntime
    except ImportError:
        return None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    return onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
