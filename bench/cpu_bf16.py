"""The bf16 path (`--precision bf16`) on the model zoo: its speedup over Tessel's float32 code
and its error, with onnxruntime (float32) as the reference and the peer.

    python -m tessel.bench.cpu_bf16 [--zoo build/zoo] [--models bert,gpt2,distilbert] [--threads 2]

Each model is compiled twice, cold (float32, and bfloat16 dense layers: passes/tg/bf16_dense.py),
checked against onnxruntime, and the three are timed interleaved (blocks after a pause, the
median reported). Error: the max difference from onnxruntime's float32 output relative to
the output's scale, for both of Tessel's builds; for the bf16 build also the cosine
similarity with onnxruntime's output and the share of rows whose argmax (a classifier's
top-1 class, a language model's next token) is onnxruntime's. Whether the CPU runs vdpbf16ps (AVX512-BF16)
or the generic code is printed with the environment. The last line is

    RESULT cpu_bf16 speedup_vs_fp32=<geomean> geomean_vs_ort=<bf16 geomean> max_rel_error=<x> min_cosine=<x> models=<n> ...
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from tessel.bench.common import environment, interleaved, log, median_ms, wait_for_quiet
from tessel.bench.cpu_models import zoo_models

MODELS = (
    "bert,distilbert,gpt2,t5_encoder,vit_small,whisper_encoder,"
    "resnet18,resnet50,mobilenet_v2,densenet121,efficientnet_b0,convnext_tiny"
)


def _error(outs: list[np.ndarray], expected: list[np.ndarray]) -> float:
    return max(
        float(np.abs(o.astype(np.float64) - e).max() / max(np.abs(e).max(), 1e-30)) for o, e in zip(outs, expected)
    )


def _cosine(outs: list[np.ndarray], expected: list[np.ndarray]) -> float:
    """The smallest cosine similarity of an output with onnxruntime's (1: same direction)."""
    worst = 1.0
    for o, e in zip(outs, expected):
        a, b = o.astype(np.float64).ravel(), np.asarray(e, np.float64).ravel()
        norm = np.linalg.norm(a) * np.linalg.norm(b)
        worst = min(worst, float(a @ b / norm) if norm else 1.0)
    return worst


def _top1(outs: list[np.ndarray], expected: list[np.ndarray]) -> float:
    """The share of rows of the first output whose largest element (argmax over the last
    axis: a classifier's top-1 class, a language model's next token) is onnxruntime's."""
    a, b = outs[0], np.asarray(expected[0])
    if a.ndim not in (2, 3) or a.shape[-1] < 2:
        return float("nan")  # (not [batch, classes] or [batch, tokens, vocabulary])
    return float((a.reshape(-1, a.shape[-1]).argmax(-1) == b.reshape(-1, b.shape[-1]).argmax(-1)).mean())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--models", default=MODELS)
    p.add_argument("--zoo", default="build/zoo", type=Path, help="the exported model zoo (make zoo)")
    args = p.parse_args(argv)

    import onnxruntime as ort

    from tessel.frontends.onnx import import_model
    from tessel.pipelines.tensor import compile_for_cpu
    from tessel.targets.cpu import cpu_target

    if not (args.zoo / "index.json").exists():
        raise SystemExit(f"cpu_bf16: {args.zoo}/index.json not found (export the zoo: make zoo)")
    os.environ["TESSEL_CACHE_DIR"] = tempfile.mkdtemp(prefix="tessel-bench-")  # cold compiles
    has = "vdpbf16ps (AVX512-BF16)" if cpu_target.current().bf16 else "generic code (no AVX512-BF16)"
    log(f"environment: {environment(args.threads)}; bf16 products: {has}")
    rows = []
    for name, model, feed in zoo_models(args.zoo, args.models.split(",")):
        inputs = [feed[i.name] for i in model.graph.input if i.name in feed]
        shapes = {k: list(v.shape) for k, v in feed.items()}
        built = {}
        for precision in ("fp32", "bf16"):
            result = import_model(model, source=f"{name}.onnx", input_shapes=shapes)
            start = time.perf_counter()
            executable, report = compile_for_cpu(
                result.module, result.weights, threads=args.threads, precision=precision
            )
            built[precision] = (executable, time.perf_counter() - start, report)
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        expected = session.run(None, feed)
        outs = {k: e.run(inputs) for k, (e, _, _) in built.items()}
        errors = {k: _error(o, expected) for k, o in outs.items()}
        cosine, top1 = _cosine(outs["bf16"], expected), _top1(outs["bf16"], expected)
        idle = wait_for_quiet()
        runs: dict[str, Callable[[], object]] = {
            k: partial(e.run_into, inputs, outs[k]) for k, (e, _, _) in built.items()
        }
        runs["ort"] = partial(session.run, None, feed)
        samples = interleaved(runs, args.rounds, settle=0.05)
        for executable, _, _ in built.values():
            executable.close()
        ms = {k: median_ms(v) for k, v in samples.items()}
        rows.append((name, ms["bf16"], ms["fp32"], ms["ort"], errors["bf16"], errors["fp32"], cosine, top1))
        log(
            f"{name:18s} bf16 {ms['bf16']:8.3f} ms   fp32 {ms['fp32']:8.3f} ms   onnxruntime {ms['ort']:8.3f} ms   "
            f"speedup {ms['fp32'] / ms['bf16']:5.2f}   vs ort {ms['ort'] / ms['bf16']:5.2f}   "
            f"rel error bf16 {errors['bf16']:.1e} (fp32 {errors['fp32']:.1e})   cosine {cosine:.5f}   "
            f"top-1 {top1:.2f}   compile {built['bf16'][1]:.1f} s   "
            f"idle {idle:.0%}"
        )
    log("")
    log(
        "| model | bf16 ms | fp32 ms | onnxruntime ms | bf16 speedup | bf16 vs ort | bf16 rel error | fp32 rel error | cosine | top-1 |"
    )
    log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, b, f, o, eb, ef, cos, t1 in rows:
        log(
            f"| {name} | {b:.2f} | {f:.2f} | {o:.2f} | {f / b:.2f} | {o / b:.2f} | {eb:.1e} | {ef:.1e} | {cos:.5f} | {t1:.2f} |"
        )

    def geomean(xs: list[float]) -> float:
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

    speedup = geomean([f / b for _, b, f, *_ in rows])
    vs_ort = geomean([o / b for _, b, _, o, *_ in rows])
    worst = max((r[4] for r in rows), default=float("nan"))
    least = min((r[6] for r in rows), default=float("nan"))
    cells = " ".join(f"{name}_bf16_ms={b:.3f} {name}_fp32_ms={f:.3f}" for name, b, f, *_ in rows)
    log(
        f"RESULT cpu_bf16 speedup_vs_fp32={speedup:.3f} geomean_vs_ort={vs_ort:.3f} max_rel_error={worst:.2e} "
        f"min_cosine={least:.5f} "
        f"models={len(rows)} {cells} threads={args.threads}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
