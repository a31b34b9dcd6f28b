"""Where a model's time goes, Tessel beside onnxruntime: Tessel's per-kernel profile (what
`tessel-run --profile` prints) and onnxruntime's own per-node profile (its
`enable_profiling` trace), each summed by operator family, so that a model slower than
onnxruntime points at the kind of kernel that loses (convolutions, matrix products,
layout conversions, pooling, normalizations, element-wise ops) before anyone reads code.

    python -m tessel.bench.cpu_profile MODEL.onnx [--input-shape x=1,3,224,224] [--threads 2]
    python -m tessel.bench.cpu_profile --zoo build/zoo --models squeezenet1_1,mobilenet_v2
    python -m tessel.bench.cpu_profile --examples resnet18,mobilenet_v1   # examples/models/

Both run at the same thread count on the same inputs (a zoo model's saved inputs; random
ones otherwise); each launch's or node's time is its median over `--runs` runs, so the
sums are of medians, taken after `--runs` whole runs (the first profile of a freshly
compiled model, without them, read the example transformer's products at 2.0 ms where
they take 1.0). Tessel's launches are timed one by one from Python, where a run hands them
all to the native plan: a model of thousands of small launches sums to more than it runs
(gru_classifier's 3188 launches to 7.3 ms, a run 0.98 ms), so the line also gives a whole
run's median (`tessel_run_ms`; ResNet-18 and the transformer sum within 1-7% of it).

The families are read from the names: a Tessel kernel is named for its op
(`k3_conv2d_nchwc__s0`), an onnxruntime node by
its op type (`Conv`, `NchwcConv`, `ReorderInput`); a fused kernel counts where its name
puts it on both sides (a convolution with its ReLU, onnxruntime's FusedConv alike). For
each model one line

    RESULT cpu_profile model=<name> tessel_ms=<x> tessel_run_ms=<x> ort_ms=<x> conv_ms=<x> ort_conv_ms=<x> ...

with the milliseconds of every family either side has.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

from tessel.bench.common import environment, log, wait_for_quiet

# family -> name fragments, tried in this order (lowercase; Tessel's kernel names and
# onnxruntime's op types alike, after stripping Tessel's k<N>_ prefix and __s<N> suffix)
FAMILIES: list[tuple[str, tuple[str, ...]]] = [
    ("conv", ("conv", "winograd")),
    ("matmul", ("matmul", "gemm", "dense", "attention", "einsum")),
    ("recurrent", ("gru", "lstm", "rnn")),
    ("pool", ("pool",)),
    ("norm", ("norm", "softmax", "reduce", "mean", "variance", "moments")),
    (
        "layout",
        (
            "reorder",
            "layout",
            "transpose",
            "reshape",
            "concat",
            "slice",
            "split",
            "pad",
            "gather",
            "copy",
            "squeeze",
            "flatten",
            "expand",
            "identity",
            "shuffle",
            "resize",
        ),
    ),
    ("quant", ("quantize", "requant")),
]
OTHER = "elementwise"  # everything else: add, relu, sigmoid, gelu, clip, mul, where...


def family(name: str) -> str:
    """The family of a Tessel kernel or an onnxruntime op type."""
    base = re.sub(r"__s\d+$", "", re.sub(r"^k\d+_", "", name)).lower()
    for fam, fragments in FAMILIES:
        if any(f in base for f in fragments):
            return fam
    return OTHER


def tessel_profile(
    model: onnx.ModelProto, feed: dict[str, np.ndarray], threads: int, runs: int
) -> tuple[list[tuple[str, float]], float]:
    """(kernel, median ms) per launch of the compiled model, and the median ms of a whole
    run (the native plan's, as a user's call runs it)."""
    from tessel.frontends.onnx import import_model
    from tessel.pipelines.tensor import compile_for_cpu

    result = import_model(model, source="model.onnx", input_shapes={k: list(v.shape) for k, v in feed.items()})
    executable, _ = compile_for_cpu(result.module, result.weights, threads=threads)
    try:
        inputs = [feed[i.name] for i in model.graph.input if i.name in feed]
        outs = executable.run(inputs)
        whole = []
        for _ in range(runs):
            start = time.perf_counter()
            executable.run_into(inputs, outs)
            whole.append(time.perf_counter() - start)
        return [(name, ms) for name, _, ms in executable.profile(inputs, runs)], float(np.median(whole)) * 1e3
    finally:
        executable.close()


def ort_profile(
    model: onnx.ModelProto, feed: dict[str, np.ndarray], threads: int, runs: int
) -> list[tuple[str, float]]:
    """(op type, median ms) per node onnxruntime ran, from its own profiling trace (the
    first run, which allocates, left out)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    options.profile_file_prefix = os.path.join(tempfile.mkdtemp(prefix="tessel-ort-profile-"), "ort")
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    session.run(None, feed)
    for _ in range(runs):
        session.run(None, feed)
    trace = json.loads(Path(session.end_profiling()).read_text())
    times: dict[str, list[float]] = collections.defaultdict(list)
    kinds: dict[str, str] = {}
    for event in trace:
        if event.get("cat") != "Node" or not str(event.get("name", "")).endswith("_kernel_time"):
            continue
        node = event["name"][: -len("_kernel_time")]
        times[node].append(event["dur"] / 1e3)
        kinds[node] = event.get("args", {}).get("op_name", node)
    # each node's runs after the first (its first run allocates)
    return [(kinds[node], float(np.median(t[1:] if len(t) > 1 else t))) for node, t in times.items()]


def by_family(rows: list[tuple[str, float]]) -> dict[str, float]:
    sums: dict[str, float] = collections.defaultdict(float)
    for name, ms in rows:
        sums[family(name)] += ms
    return dict(sums)


def compare(name: str, model: onnx.ModelProto, feed: dict[str, np.ndarray], threads: int, runs: int) -> None:
    wait_for_quiet()
    ours, run_ms = tessel_profile(model, feed, threads, runs)
    theirs = ort_profile(model, feed, threads, runs)
    mine, peer = by_family(ours), by_family(theirs)
    total, peer_total = sum(mine.values()), sum(peer.values())
    log(
        f"{name}: Tessel {total:.3f} ms in {len(ours)} launches (a whole run: {run_ms:.3f} ms), "
        f"onnxruntime {peer_total:.3f} ms in {len(theirs)} nodes"
    )
    log(f"  {'family':12s} {'Tessel ms':>10s} {'ort ms':>10s} {'ort/Tessel':>10s}   Tessel's slowest kernel of it")
    families = sorted(set(mine) | set(peer), key=lambda f: -max(mine.get(f, 0.0), peer.get(f, 0.0)))
    for fam in families:
        t, o = mine.get(fam, 0.0), peer.get(fam, 0.0)
        slowest = max((r for r in ours if family(r[0]) == fam), key=lambda r: r[1], default=None)
        ratio = f"{o / t:10.2f}" if t > 0 and o > 0 else f"{'-':>10s}"
        where = f"{slowest[0]} {slowest[1]:.3f} ms" if slowest else ""
        log(f"  {fam:12s} {t:10.3f} {o:10.3f} {ratio}   {where}")
    ops = collections.Counter(kind for kind, _ in theirs)
    log(f"  onnxruntime's nodes: {', '.join(f'{k} x{n}' for k, n in ops.most_common())}")
    cells = " ".join(f"{fam}_ms={mine.get(fam, 0.0):.3f} ort_{fam}_ms={peer.get(fam, 0.0):.3f}" for fam in families)
    log(
        f"RESULT cpu_profile model={name} tessel_ms={total:.3f} tessel_run_ms={run_ms:.3f} ort_ms={peer_total:.3f} "
        f"{cells} threads={threads}"
    )


def _random_feed(model: onnx.ModelProto, shapes: dict[str, list[int]]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    initializers = {i.name for i in model.graph.initializer}
    feed = {}
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        dims = shapes.get(vi.name) or [d.dim_value for d in vi.type.tensor_type.shape.dim]
        if not all(d > 0 for d in dims):
            raise SystemExit(f"cpu_profile: input '{vi.name}' has a dynamic shape; give it with --input-shape")
        dtype = onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
        feed[vi.name] = (
            rng.standard_normal(dims).astype(dtype) if dtype.kind == "f" else rng.integers(0, 2, dims).astype(dtype)
        )
    return feed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model", nargs="?", type=Path, help="an ONNX model")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0,D1,...")
    p.add_argument("--zoo", type=Path, help="a zoo folder (examples/zoo/export.py's; with its inputs)")
    p.add_argument("--models", default="", help="with --zoo: comma-separated names (default: all)")
    p.add_argument("--examples", default="", help="comma-separated example models (bench.cpu_models')")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=30)
    args = p.parse_args(argv)
    if sum(x is not None for x in (args.model, args.zoo, args.examples or None)) != 1:
        p.error("give one ONNX model, --zoo FOLDER or --examples NAMES")
    log(f"environment: {environment(args.threads)}")
    if args.examples:
        from tessel.bench.cpu_models import MODELS, build_example

        for name in args.examples.split(","):
            if name not in MODELS:
                raise SystemExit(f"cpu_profile: no example model '{name}' (there are: {', '.join(MODELS)})")
            model = build_example(name)
            compare(name, model, _random_feed(model, {}), args.threads, args.runs)
        return 0
    if args.zoo is not None:
        from tessel.bench.cpu_models import zoo_models

        if not (args.zoo / "index.json").exists():
            raise SystemExit(f"cpu_profile: {args.zoo}/index.json not found (export the zoo: make zoo)")
        for name, model, feed in zoo_models(args.zoo, [m for m in args.models.split(",") if m] or None):
            compare(name, model, feed, args.threads, args.runs)
        return 0
    if not args.model.exists():
        raise SystemExit(f"cpu_profile: {args.model}: no such file")
    shapes = {}
    for spec in args.input_shape:
        name, _, dims = spec.partition("=")
        try:
            shapes[name] = [int(d) for d in dims.split(",")]
        except ValueError:
            raise SystemExit(
                f"cpu_profile: --input-shape {spec}: want NAME=D0,D1,... with integer dimensions"
            ) from None
    model = onnx.load(str(args.model))
    compare(args.model.stem, model, _random_feed(model, shapes), args.threads, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
