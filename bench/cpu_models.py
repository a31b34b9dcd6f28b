"""CPU latency of the example models: Tessel (untuned default schedules) vs onnxruntime.

    python -m tessel.bench.cpu_models [--threads 2] [--rounds 15] [--models resnet18,dqn]
    python -m tessel.bench.cpu_models --zoo [build/zoo] [--models bert,gpt2]

`--zoo` times the model zoo instead (exported by `make zoo` / examples/zoo/export.py: each
NAME.onnx with its NAME.inputs.npz, at the shapes recorded there); a model Tessel cannot
compile is listed with its one-line reason and left out of the geomean, which says how many
models it covers.

Both run in this process on the same inputs, alternating in blocks of about 50 ms with a
pause between blocks (both runtimes' threads spin after a run and would slow the other),
with the same thread count (onnxruntime: intra_op = threads, inter_op = 1, all graph
optimizations). Reported: median
ms per inference, the ratio onnxruntime / Tessel (> 1: Tessel is faster), Tessel's compile
time (cold: the object cache is bypassed), and the max error against onnxruntime relative
to the output's scale. The last line is

    RESULT cpu_models resnet18_ms=<x> ort_resnet18_ms=<x> geomean_vs_ort=<x> ...
    RESULT cpu_models_zoo geomean_vs_ort=<x> models=<compiled>/<total> NAME_ms=<x> ort_NAME_ms=<x> ...
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import onnx

from tessel.bench.common import environment, interleaved, log, median_ms, wait_for_quiet

MODELS = ("resnet18", "mobilenet_v1", "transformer", "dqn", "dcgan")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "models"


def build_example(name: str) -> onnx.ModelProto:
    """One of the example models (examples/models/NAME.py), built in memory."""
    sys.path.insert(0, str(EXAMPLES))
    module = __import__(name)
    return module.build()


def zoo_models(
    folder: Path, names: list[str] | None, index: dict[str, dict] | None = None
) -> list[tuple[str, onnx.ModelProto, dict[str, np.ndarray]]]:
    """(name, model, inputs) of the exported zoo, in index order (`names` filters; `index`:
    the zoo's index.json, read here unless given)."""
    index = index if index is not None else zoo_index(folder)
    chosen = [n for n in index if names is None or n in names]
    return [(n, onnx.load(str(folder / f"{n}.onnx")), dict(np.load(folder / f"{n}.inputs.npz"))) for n in chosen]


def zoo_index(folder: Path) -> dict[str, dict]:
    import json

    return json.loads((folder / "index.json").read_text())


# A float model whose output differs from onnxruntime's by more than this (relative to the
# output's largest value) is counted wrong: its time is not a result. (A gate for gross
# errors, looser than `make zoo`'s 1e-4; a quantized model's outputs differ by whole
# quantization steps, which `make zoo` counts.)
WRONG_ABOVE = 1e-3


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--records", help="a tessel-tune log: also time Tessel with the tuned schedules")
    p.add_argument("--zoo", nargs="?", const="build/zoo", type=Path, help="time the exported model zoo in this folder")
    args = p.parse_args(argv)
    if args.zoo is not None:
        return _main_zoo(args)

    import onnxruntime as ort

    from tessel.frontends.onnx import import_model
    from tessel.pipelines.tensor import compile_for_cpu

    os.environ["TESSEL_CACHE_DIR"] = tempfile.mkdtemp(prefix="tessel-bench-")  # cold compiles
    log(f"environment: {environment(args.threads)}")
    rows = []
    for name in args.models.split(","):
        model = build_example(name)
        result = import_model(model, source=f"{name}.onnx")
        start = time.perf_counter()
        tuned_result = import_model(model, source=f"{name}.onnx") if args.records else None
        executable, report = compile_for_cpu(result.module, result.weights, threads=args.threads)
        compile_s = time.perf_counter() - start
        tuned = None
        if tuned_result is not None:
            tuned, tuned_report = compile_for_cpu(
                tuned_result.module, tuned_result.weights, threads=args.threads, records=args.records
            )
            log(f"{name}: {tuned_report.summary()}")
        rng = np.random.default_rng(0)
        feed = {}
        for vi in model.graph.input:
            shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
            feed[vi.name] = rng.standard_normal(shape).astype(np.float32)
        inputs = list(feed.values())
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        outs = executable.run(inputs)
        expected = session.run(None, feed)
        error = max(float(np.abs(o - e).max() / max(np.abs(e).max(), 1e-30)) for o, e in zip(outs, expected))
        idle = wait_for_quiet()
        runs: dict[str, Callable[[], object]] = {
            "tessel": partial(executable.run_into, inputs, outs),
            "ort": partial(session.run, None, feed),
        }
        if tuned is not None:
            tuned_outs = tuned.run(inputs)
            tuned_error = max(
                float(np.abs(o - e).max() / max(np.abs(e).max(), 1e-30)) for o, e in zip(tuned_outs, expected)
            )
            if tuned_error > 1e-4:
                raise SystemExit(f"{name}: the tuned build differs from onnxruntime by {tuned_error:.1e}")
            runs["tuned"] = partial(tuned.run_into, inputs, tuned_outs)
        samples = interleaved(runs, args.rounds, settle=0.05)
        executable.close()
        t, o = median_ms(samples["tessel"]), median_ms(samples["ort"])
        tt = median_ms(samples["tuned"]) if tuned is not None else None
        if tuned is not None:
            tuned.close()
        rows.append((name, t, o, o / t, compile_s, error, idle, report, tt))
        tuned_text = f"   tuned {tt:9.3f} ms (ratio {o / tt:5.2f})" if tt else ""
        log(
            f"{name:14s} tessel {t:9.3f} ms   onnxruntime {o:9.3f} ms   ratio {o / t:5.2f}{tuned_text}   "
            f"compile {compile_s:5.1f} s   rel error {error:.1e}   idle {idle:.0%}   ({report.summary()})"
        )
    geomean = math.exp(sum(math.log(r[3]) for r in rows) / len(rows))
    log("")
    log("| model | Tessel ms | onnxruntime ms | ratio (ort / Tessel) | compile s | max rel error |")
    log("|---|---:|---:|---:|---:|---:|")
    for name, t, o, ratio, c, err, _, _, tt in rows:
        tuned_cell = f" tuned {tt:.2f} ms ({o / tt:.2f})" if tt else ""
        log(f"| {name} | {t:.2f} | {o:.2f} | {ratio:.2f}{tuned_cell} | {c:.1f} | {err:.1e} |")
    first = [f"{name}_ms={t:.3f} ort_{name}_ms={o:.3f}" for name, t, o, *_ in rows if name == "resnet18"]
    rest = [f"{name}_ms={t:.3f} ort_{name}_ms={o:.3f}" for name, t, o, *_ in rows if name != "resnet18"]
    tuned = [f"tuned_{name}_ms={tt:.3f}" for name, *_, tt in rows if tt]
    if tuned:
        tuned_geo = math.exp(sum(math.log(r[2] / r[8]) for r in rows if r[8]) / len(tuned))
        tuned.append(f"tuned_geomean_vs_ort={tuned_geo:.3f}")
    log(
        f"RESULT cpu_models {' '.join([*first, f'geomean_vs_ort={geomean:.3f}', *rest, *tuned])} threads={args.threads}"
    )
    return 0


def _main_zoo(args: argparse.Namespace) -> int:
    """The zoo: each model compiled cold, checked against onnxruntime, timed interleaved."""
    import onnxruntime as ort

    from tessel.frontends.onnx import import_model
    from tessel.ir.diagnostics import TesselError
    from tessel.pipelines.tensor import compile_for_cpu

    if not (args.zoo / "index.json").exists():
        raise SystemExit(f"cpu_models: {args.zoo}/index.json not found (export the zoo: make zoo)")
    os.environ["TESSEL_CACHE_DIR"] = tempfile.mkdtemp(prefix="tessel-bench-")  # cold compiles
    log(f"environment: {environment(args.threads)}")
    wanted = None if args.models == ",".join(MODELS) else args.models.split(",")
    index = zoo_index(args.zoo)
    families = {name: entry.get("family", "") for name, entry in index.items()}
    rows, skipped = [], []
    for name, model, feed in zoo_models(args.zoo, wanted, index):
        inputs = [feed[i.name] for i in model.graph.input if i.name in feed]
        try:
            result = import_model(
                model, source=f"{name}.onnx", input_shapes={k: list(v.shape) for k, v in feed.items()}
            )
            start = time.perf_counter()
            executable, report = compile_for_cpu(result.module, result.weights, threads=args.threads)
            compile_s = time.perf_counter() - start
        except TesselError as err:
            skipped.append((name, str(err)))
            log(f"{name:22s} not compiled: {err}")
            continue
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        outs = executable.run(inputs)
        expected = session.run(None, feed)
        error = max(
            float(np.abs(o.astype(np.float64) - e).max() / max(np.abs(e).max(), 1e-30)) for o, e in zip(outs, expected)
        )
        idle = wait_for_quiet()
        runs: dict[str, Callable[[], object]] = {
            "tessel": partial(executable.run_into, inputs, outs),
            "ort": partial(session.run, None, feed),
        }
        samples = interleaved(runs, args.rounds, settle=0.05)
        executable.close()
        t, o = median_ms(samples["tessel"]), median_ms(samples["ort"])
        wrong = families.get(name) != "int8" and not error <= WRONG_ABOVE
        rows.append((name, t, o, o / t, compile_s, error, wrong))
        log(
            f"{name:22s} tessel {t:9.3f} ms   onnxruntime {o:9.3f} ms   ratio {o / t:5.2f}   "
            f"compile {compile_s:5.1f} s   rel error {error:.1e}{'  WRONG' if wrong else ''}   idle {idle:.0%}   "
            f"({report.summary()})"
        )
    log("")
    log("| model | Tessel ms | onnxruntime ms | ratio (ort / Tessel) | compile s | max rel error |")
    log("|---|---:|---:|---:|---:|---:|")
    for name, t, o, ratio, c, rel_error, wrong in rows:
        log(f"| {name} | {t:.2f} | {o:.2f} | {ratio:.2f} | {c:.1f} | {rel_error:.1e}{' WRONG' if wrong else ''} |")
    for name, why in skipped:
        log(f"| {name} | not compiled: {why} | | | | |")
    total = len(rows) + len(skipped)
    geomean = math.exp(sum(math.log(r[3]) for r in rows) / len(rows)) if rows else float("nan")
    cells = [f"{name}_ms={t:.3f} ort_{name}_ms={o:.3f}" for name, t, o, *_ in rows]
    wrong = [r[0] for r in rows if r[6]]
    log(
        f"RESULT cpu_models_zoo geomean_vs_ort={geomean:.3f} models={len(rows)}/{total} wrong={len(wrong)} "
        f"{' '.join(cells)} threads={args.threads}"
    )
    if wrong:
        log(f"cpu_models: wrong results (over {WRONG_ABOVE:g} of the output's scale) from {', '.join(wrong)}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
