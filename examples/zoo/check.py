"""Check the exported zoo: import, the reference and CPU targets against onnxruntime,
compile time, latency next to onnxruntime's, as a markdown table.

    python examples/zoo/check.py build/zoo [names...] [--targets reference,cpu] [--time 10]

Runs in the project's venv (tessel + onnxruntime). A model passes when both targets match
onnxruntime within max|a-e| / max|e| <= 1e-4 (fp32) or exactly / within one quantization
step (int8); every failure is shown with its first error line.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

from tessel.frontends.onnx import import_model, load_model
from tessel.ir.diagnostics import TesselError
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.reference.interpreter import run as run_reference

TOLERANCE = 1e-4


@dataclass
class Row:
    name: str
    family: str
    source: str = ""
    params: int = 0
    imported: str = ""
    reference: str = ""
    cpu: str = ""
    compile_s: float | None = None
    tessel_ms: float | None = None
    ort_ms: float | None = None
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.imported == "ok" and self.reference.startswith("ok") and self.cpu.startswith("ok")


def relative_error(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        if g.shape != w.shape:
            return float("inf")
        scale = float(np.abs(w.astype(np.float64)).max()) or 1.0
        worst = max(worst, float(np.abs(g.astype(np.float64) - w.astype(np.float64)).max()) / scale)
    return worst


def quantization_steps(got: list[np.ndarray], want: list[np.ndarray]) -> int:
    return max(int(np.abs(g.astype(np.int64) - w.astype(np.int64)).max()) for g, w in zip(got, want, strict=True))


def output_steps(model: onnx.ModelProto) -> list[float] | None:
    """Per graph output, the scale of the DequantizeLinear that makes it: a QDQ model's
    float outputs are whole multiples of it, so a difference is a number of steps. None
    when an output is not made so."""
    producers = {o: n for n in model.graph.node for o in n.output}
    inits = {t.name: t for t in model.graph.initializer}
    steps = []
    for out in model.graph.output:
        node = producers.get(out.name)
        if node is None or node.op_type != "DequantizeLinear" or node.input[1] not in inits:
            return None
        scale = numpy_helper.to_array(inits[node.input[1]])
        if scale.size != 1:
            return None
        steps.append(float(scale))
    return steps


def float_steps(got: list[np.ndarray], want: list[np.ndarray], steps: list[float]) -> int:
    return max(
        int(round(float(np.abs(g.astype(np.float64) - w.astype(np.float64)).max()) / s))
        for g, w, s in zip(got, want, steps, strict=True)
    )


def verdict(got: list[np.ndarray], want: list[np.ndarray], family: str, steps: list[float] | None = None) -> str:
    if family == "int8" and (steps or all(w.dtype.kind in "iu" for w in want)):
        n = float_steps(got, want, steps) if steps else quantization_steps(got, want)
        return "ok (exact)" if n == 0 else ("ok (1 step)" if n == 1 else f"off by {n} steps")
    error = relative_error(got, want)
    return f"ok ({error:.1e})" if error <= TOLERANCE else f"error {error:.1e}"


def parameter_count(model: onnx.ModelProto) -> int:
    """Elements of the model's initializers (weights, biases, quantization scales)."""
    return sum(int(np.prod(t.dims, dtype=np.int64)) for t in model.graph.initializer)


def _millions(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e5 else f"{n / 1e3:.0f}k"


def median_ms(fn, runs: int) -> float:  # noqa: ANN001
    fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e3)
    return float(np.median(samples))


def check(path: Path, entry: dict, targets: list[str], runs: int, threads: int) -> Row:
    name = path.stem
    row = Row(name, entry.get("family", "?"), entry.get("source", ""))
    feed = dict(np.load(path.with_suffix(".inputs.npz")))
    model = load_model(str(path))
    row.params = parameter_count(model)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    expected = session.run(None, feed)
    steps = output_steps(model) if row.family == "int8" else None
    if row.family == "int8":
        # The QDQ graph means float dequantize -> op -> quantize, which onnxruntime
        # computes with its graph optimizations off; its default fuses them into integer
        # kernels that round otherwise (on CPUs without VNNI their u8s8 pair sums
        # saturate int16, see tg-qdq-to-integer). Compared with the former; the distance
        # to the latter is shown.
        plain = ort.SessionOptions()
        plain.intra_op_num_threads = threads
        plain.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        default = expected
        expected = ort.InferenceSession(str(path), plain, providers=["CPUExecutionProvider"]).run(None, feed)
        apart = float_steps(default, expected, steps) if steps else quantization_steps(default, expected)
        row.notes.append(
            f"compared with onnxruntime with graph optimizations off; its default (fused integer kernels) "
            f"is {apart} output steps from that"
        )
    shapes = {k: list(v.shape) for k, v in feed.items()}
    try:
        result = import_model(model, source=path.name, input_shapes=shapes)
        row.imported = "ok"
    except TesselError as err:
        row.imported = "no"
        row.errors.append(str(err))
        return row
    inputs = [feed[i.name] for i in model.graph.input if i.name in feed]
    if "reference" in targets:
        try:
            got = run_reference(result.module.clone(), inputs, result.weights)
            row.reference = verdict(got, expected, row.family, steps)
        except TesselError as err:
            row.reference = "error"
            row.errors.append(f"reference: {err}")
        except Exception as err:  # noqa: BLE001 - an internal error is a result to report
            row.reference = "internal error"
            row.errors.append(f"reference: internal error {type(err).__name__}: {err}".splitlines()[0])
    if "cpu" in targets:
        try:
            start = time.perf_counter()
            executable, _ = compile_for_cpu(result.module, result.weights, threads=threads)
            row.compile_s = time.perf_counter() - start
            try:
                got = executable.run(inputs)
                row.cpu = verdict(got, expected, row.family, steps)
                if runs:
                    outs = [np.empty_like(g) for g in got]
                    row.tessel_ms = median_ms(lambda: executable.run_into(inputs, outs), runs)
                    row.ort_ms = median_ms(lambda: session.run(None, feed), runs)
            finally:
                executable.close()
        except TesselError as err:
            row.cpu = "error"
            row.errors.append(f"cpu: {err}")
        except Exception as err:  # noqa: BLE001
            row.cpu = "internal error"
            row.errors.append(f"cpu: internal error {type(err).__name__}: {err}".splitlines()[0])
            traceback.print_exc(file=sys.stderr)
    return row


def table(rows: list[Row]) -> str:
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next(
        (line.split(":", 1)[1].strip() for line in cpu.splitlines() if line.startswith("Model name")),
        platform.processor(),
    )
    lines = [
        f"CPU: {model}; onnx {onnx.__version__}, onnxruntime {ort.__version__}",
        "",
        "Errors are max|a - e| / max|e| against onnxruntime (int8: output steps); ratio is ort ms / tessel ms.",
        "",
        "| model | source | params | import | reference vs ort | cpu vs ort | compile s | tessel ms | ort ms | ratio |",
        "|---|---|---:|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = f"{r.ort_ms / r.tessel_ms:.2f}" if r.tessel_ms and r.ort_ms else ""
        compile_s = f"{r.compile_s:.1f}" if r.compile_s is not None else ""
        t = f"{r.tessel_ms:.2f}" if r.tessel_ms else ""
        o = f"{r.ort_ms:.2f}" if r.ort_ms else ""
        cells = [r.name, r.source, _millions(r.params), r.imported, r.reference, r.cpu, compile_s, t, o, ratio]
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"- {r.name}: " + "; ".join(r.notes) for r in rows if r.notes]
    if notes:
        lines += ["", *notes]
    failures = [r for r in rows if not r.passed and r.errors]
    if failures:
        lines += ["", "Errors:", ""]
        lines += [f"- {r.name}: " + " / ".join(" ".join(e.split())[:300] for e in r.errors) for r in failures]
    return "\n".join(lines) + "\n"


BEGIN, END = "<!-- zoo-table: examples/zoo/check.py -o writes from here -->", "<!-- /zoo-table -->"


def write_table(path: Path, text: str) -> None:
    """The table into `path`: between the markers where the page has them (docs/zoo.md keeps
    its prose around the table), else the whole file."""
    page = path.read_text() if path.exists() else ""
    if BEGIN in page and END in page:
        head, rest = page.split(BEGIN, 1)
        path.write_text(f"{head}{BEGIN}\n{text}{END}{rest.split(END, 1)[1]}")
    else:
        path.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--targets", default="reference,cpu")
    parser.add_argument("--time", type=int, default=0, metavar="N", help="median latency over N runs")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("-o", "--output", type=Path, help="write the table here too")
    args = parser.parse_args()
    index = json.loads((args.folder / "index.json").read_text())
    names = args.names or sorted(index)
    rows = []
    for name in names:
        row = check(args.folder / f"{name}.onnx", index[name], args.targets.split(","), args.time, args.threads)
        print(f"{name}: import {row.imported} reference {row.reference} cpu {row.cpu}"
              + (f" | {row.errors[0][:200]}" if row.errors else ""), flush=True)  # fmt: skip
        rows.append(row)
    text = table(rows)
    print(text)
    passed = sum(r.passed for r in rows)
    result = f"RESULT zoo passed={passed} total={len(rows)}"
    if args.output:
        write_table(args.output, f"{text}\n{result}\n")
    print(result)
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
