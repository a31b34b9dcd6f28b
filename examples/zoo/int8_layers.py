"""Layer by layer: is every quantized layer of a QDQ model within one step of onnxruntime?

    python examples/zoo/int8_layers.py build/zoo/resnet18_int8.onnx [--targets reference,cpu]

A QDQ model's output is many requantizations deep, and a one-step difference at one layer
(a value within float32 rounding of a tie x.5, which onnxruntime's float32 accumulation
rounds one way and Tessel's exact sums the other) moves the layers after it. Comparing
outputs alone cannot tell such a difference from a wrong kernel. This script compares each
QuantizeLinear of an activation on its own: onnxruntime (graph optimizations off: the QDQ
graph's float dequantize -> op -> quantize meaning) runs the whole model once with every
quantized activation exposed; each layer (the subgraph from the quantized tensors it reads
to the one it writes) is then imported and run by Tessel on onnxruntime's inputs, and its
output compared with onnxruntime's in integer steps. For every element that differs, the
exact pre-rounding value (float64, from onnxruntime's float input to the QuantizeLinear)
says how far from a tie it was.

Prints one row per layer and ends with
`RESULT int8_layers layers=N max_steps=S differing=D of=E max_tie_distance=T`.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper
from onnx.utils import Extractor

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.reference.interpreter import run as run_reference


def quantized_activations(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    """The QuantizeLinear nodes of activations (not of weights stored as initializers)."""
    weights = {t.name for t in model.graph.initializer}
    return [n for n in model.graph.node if n.op_type == "QuantizeLinear" and n.input[0] not in weights]


def layer_inputs(model: onnx.ModelProto, node: onnx.NodeProto, boundaries: set[str]) -> list[str]:
    """The quantized tensors and graph inputs that `node`'s layer reads: walk up from its input
    until a boundary (another quantized activation or a graph input); initializers are weights."""
    producer = {out: n for n in model.graph.node for out in n.output}
    weights = {t.name for t in model.graph.initializer}
    found: list[str] = []
    todo, seen = [node.input[0]], set()
    while todo:
        name = todo.pop()
        if name in seen or not name or name in weights:
            continue
        seen.add(name)
        if name in boundaries or name not in producer:
            found.append(name)
            continue
        todo.extend(producer[name].input)
    return sorted(found)


def scalar(model: onnx.ModelProto, name: str) -> float:
    init = {t.name: t for t in model.graph.initializer}
    return float(numpy_helper.to_array(init[name]).reshape(-1)[0]) if name in init else 0.0


@dataclass
class Layer:
    name: str
    target: str
    elements: int
    differ: int  # elements not equal to onnxruntime's
    steps: int  # the largest difference, in quantization steps
    tie_distance: float  # the farthest a differing element's exact value was from a tie x.5


def compare(model: onnx.ModelProto, feed: dict[str, np.ndarray], targets: list[str], threads: int = 2) -> list[Layer]:
    """Every quantized activation of `model` computed by Tessel from onnxruntime's inputs."""
    model = onnx.shape_inference.infer_shapes(model)
    nodes = quantized_activations(model)
    boundaries = {n.output[0] for n in nodes} | {i.name for i in model.graph.input}
    # onnxruntime once, every quantized activation and its float input exposed
    exposed = onnx.ModelProto()
    exposed.CopyFrom(model)
    known = {v.name: v for v in [*model.graph.value_info, *model.graph.output]}
    have = {o.name for o in exposed.graph.output}
    for n in nodes:
        for name in (n.input[0], n.output[0]):
            if name not in have and name not in feed:
                exposed.graph.output.append(known[name])
                have.add(name)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(exposed.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in exposed.graph.output]
    values = dict(zip(names, session.run(None, feed), strict=True)) | feed

    extractor = Extractor(model)
    rows = []
    for n in nodes:
        inputs = layer_inputs(model, n, boundaries)
        layer = extractor.extract_model(inputs, [n.output[0]])
        want = values[n.output[0]]
        shapes = {name: list(values[name].shape) for name in inputs}
        imported = import_model(layer, source=n.name, input_shapes=shapes)
        feeds = [values[i.name] for i in layer.graph.input if i.name in shapes]
        # the exact value before rounding, in steps (the float input is onnxruntime's)
        scale = scalar(model, n.input[1])
        zero = scalar(model, n.input[2]) if len(n.input) > 2 else 0.0
        exact = values[n.input[0]].astype(np.float64) / scale + zero
        for target in targets:
            if target == "reference":
                got = run_reference(imported.module.clone(), feeds, imported.weights)[0]
            else:
                executable, _ = compile_for_cpu(imported.module.clone(), imported.weights, threads=threads)
                try:
                    got = executable.run(feeds)[0]
                finally:
                    executable.close()
            diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
            mask = diff > 0
            tie = float(np.abs(np.abs(exact[mask] - np.floor(exact[mask])) - 0.5).max()) if mask.any() else 0.0
            rows.append(Layer(n.name, target, diff.size, int(mask.sum()), int(diff.max()), tie))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path)
    ap.add_argument("--targets", default="reference,cpu")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    feed = dict(np.load(args.model.with_suffix(".inputs.npz")))
    rows = compare(onnx.load(str(args.model)), feed, args.targets.split(","), args.threads)
    print(f"{'layer':44} {'target':9} {'elements':>9} {'differ':>7} {'max':>4} {'tie_dist':>9}")
    for r in rows:
        print(f"{r.name[:44]:44} {r.target:9} {r.elements:9d} {r.differ:7d} {r.steps:4d} {r.tie_distance:9.2e}")
    print(
        f"RESULT int8_layers layers={len({r.name for r in rows})} max_steps={max(r.steps for r in rows)} "
        f"differing={sum(r.differ for r in rows)} of={sum(r.elements for r in rows)} "
        f"max_tie_distance={max(r.tie_distance for r in rows):.2e}"
    )


if __name__ == "__main__":
    main()
