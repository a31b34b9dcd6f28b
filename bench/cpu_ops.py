"""Single operators against their peers: matmul vs numpy (OpenBLAS), ResNet-18's conv
layers C1-C12 and MobileNet's depthwise layers D1-D9 vs onnxruntime (and Apache TVM when
it is installed), Tessel with default schedules and, after `--tune-trials N` per
workload, with tuned ones.

    python -m tessel.bench.cpu_ops [--threads 2] [--tune-trials 64] [--only C2,matmul1024]

Shapes are those of TVM's paper (Table 2; shared/research/tvm_design.md): convolutions
NCHW with SAME padding, weights constant, no bias, batch 1; matmul with both operands as
run-time inputs. Every peer runs in this process on the same inputs, in alternating
blocks after a pause (spinning thread pools), medians reported; numpy after the others,
on its own (OpenBLAS's workers spin long enough to slow whatever runs next). Ratios are peer time /
Tessel time (> 1: Tessel faster); `matmul1024_of_peak` is the 1024^3 product's GFLOP/s
over the FMA peak at the same thread count, measured in the same run (bench.cpu_peak's
loop on `--threads` cores at once). The last line is

    RESULT cpu_ops matmul1024_vs_numpy=<x> ... matmul1024_of_peak=<x> conv_geomean_vs_ort=<x> ...
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from collections.abc import Callable
from functools import partial

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from threadpoolctl import threadpool_limits

from tessel.bench import tvm_peer
from tessel.bench.common import environment, interleaved, log, median_ms, wait_for_quiet
from tessel.bench.cpu_peak import fma_peak

CONV = {  # H, W, IC, OC, K, S
    "C1": (224, 224, 3, 64, 7, 2),
    "C2": (56, 56, 64, 64, 3, 1),
    "C3": (56, 56, 64, 64, 1, 1),
    "C4": (56, 56, 64, 128, 3, 2),
    "C5": (56, 56, 64, 128, 1, 2),
    "C6": (28, 28, 128, 128, 3, 1),
    "C7": (28, 28, 128, 256, 3, 2),
    "C8": (28, 28, 128, 256, 1, 2),
    "C9": (14, 14, 256, 256, 3, 1),
    "C10": (14, 14, 256, 512, 3, 2),
    "C11": (14, 14, 256, 512, 1, 2),
    "C12": (7, 7, 512, 512, 3, 1),
}
DEPTHWISE = {  # H, W, C, K, S
    "D1": (112, 112, 32, 3, 1),
    "D2": (112, 112, 64, 3, 2),
    "D3": (56, 56, 128, 3, 1),
    "D4": (56, 56, 128, 3, 2),
    "D5": (28, 28, 256, 3, 1),
    "D6": (28, 28, 256, 3, 2),
    "D7": (14, 14, 512, 3, 1),
    "D8": (14, 14, 512, 3, 2),
    "D9": (7, 7, 1024, 3, 1),
}
MATMUL = {"matmul512": 512, "matmul1024": 1024}


# IR version 8 (opset 17's): onnx 1.23 writes 14 by default, which onnxruntime before 1.32
# refuses ("Unsupported model IR version: 14, max supported IR version: 13", seen with 1.30)
OPSET, IR_VERSION = [helper.make_opsetid("", 17)], 8


def conv_model(
    h: int, w: int, ic: int, oc: int, k: int, s: int, groups: int = 1, seed: int = 0
) -> tuple[onnx.ModelProto, float]:
    rng = np.random.default_rng(seed)
    weight = (rng.standard_normal((oc, ic // groups, k, k)) / math.sqrt(ic // groups * k * k)).astype(np.float32)
    pad = k // 2
    oh, ow = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
    node = helper.make_node("Conv", ["x", "w"], ["y"], strides=[s, s], pads=[pad] * 4, group=groups)
    graph = helper.make_graph(
        [node],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ic, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, oc, oh, ow])],
        [numpy_helper.from_array(weight, "w")],
    )
    flops = 2.0 * oc * oh * ow * (ic // groups) * k * k
    return helper.make_model(graph, opset_imports=OPSET, ir_version=IR_VERSION), flops


def matmul_model(n: int) -> tuple[onnx.ModelProto, float]:
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])],
        "matmul",
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [n, n]) for x in "ab"],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])],
    )
    return helper.make_model(graph, opset_imports=OPSET, ir_version=IR_VERSION), 2.0 * n**3


def workloads(only: set[str] | None):
    for name, (h, w, ic, oc, k, s) in CONV.items():
        if not only or name in only:
            yield name, "conv", *conv_model(h, w, ic, oc, k, s)
    for name, (h, w, c, k, s) in DEPTHWISE.items():
        if not only or name in only:
            yield name, "depthwise", *conv_model(h, w, c, c, k, s, groups=c)
    for name, n in MATMUL.items():
        if not only or name in only:
            yield name, "matmul", *matmul_model(n)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument(
        "--tune-trials", type=int, default=0, help="tune each workload this many trials first (0: untuned only)"
    )
    p.add_argument("--records", default=None, help="records file for --tune-trials (default: a temporary one)")
    p.add_argument("--only", default="", help="comma-separated workload names")
    p.add_argument(
        "--tvm", action="store_true", help="also time Apache TVM (untuned; and MetaSchedule with --tune-trials)"
    )
    args = p.parse_args(argv)

    import onnxruntime as ort

    from tessel.frontends.onnx import import_model
    from tessel.pipelines.tensor import compile_for_cpu

    log(f"environment: {environment(args.threads)}")
    records = args.records or (
        os.path.join(tempfile.mkdtemp(prefix="tessel-ops-"), "records.jsonl") if args.tune_trials else None
    )
    rows = []
    chosen = list(workloads(set(filter(None, args.only.split(","))) or None))
    # the FMA peak at the same thread count, in this run: what "the matmul reaches N% of
    # peak" reads against (twice one core's only where the clock holds with both busy)
    peak = fma_peak(args.threads) if any(kind == "matmul" for _, kind, _, _ in chosen) else float("nan")
    if math.isfinite(peak):
        log(f"FMA peak at {args.threads} threads: {peak:.1f} GFLOP/s (tessel.bench.cpu_peak's loop)")
    for name, kind, model, flops in chosen:
        rng = np.random.default_rng(1)
        feed = {
            vi.name: rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
            for vi in model.graph.input
            if vi.name not in {i.name for i in model.graph.initializer}
        }
        inputs = list(feed.values())
        if args.tune_trials:
            assert records is not None
            _tune(model, name, records, args.tune_trials, args.threads)
        result = import_model(model, source=f"{name}.onnx")
        untuned, _ = compile_for_cpu(result.module.clone(), result.weights, threads=args.threads)
        candidates = {"tessel": untuned}
        if args.tune_trials:
            tuned_module = import_model(model, source=f"{name}.onnx")
            candidates["tuned"], _ = compile_for_cpu(
                tuned_module.module, tuned_module.weights, threads=args.threads, records=records
            )
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        runs: dict[str, Callable[[], object]] = {key: partial(e.run, inputs) for key, e in candidates.items()}
        runs["ort"] = partial(session.run, None, feed)
        # timed on its own, after the others: OpenBLAS's workers spin for a few hundred ms
        # after a call, so whatever ran after numpy shared the cores with them (Tessel's
        # 1024^3 product measured 7.27 ms after numpy, 5.21 ms after onnxruntime)
        alone: dict[str, Callable[[], object]] = {}
        if kind == "matmul":
            a, b = inputs
            alone["numpy"] = partial(np.matmul, a, b)
        if args.tvm and tvm_peer.available():
            runs["tvm"] = tvm_peer.untuned(model, feed, args.threads)
            if args.tune_trials:
                shape = CONV.get(name) or DEPTHWISE.get(name) or (MATMUL[name],)
                runs["tvm_tuned"], tvm_s = tvm_peer.tuned(kind, shape, args.tune_trials, args.threads)
                log(f"{name}: MetaSchedule tuned {args.tune_trials} trials in {tvm_s:.0f} s")
        want = session.run(None, feed)[0]
        for key, e in candidates.items():
            got = e.run(inputs)[0]
            error = float(np.abs(got - want).max() / np.abs(want).max())
            if error > 1e-4:
                raise SystemExit(f"{name}: {key} differs from onnxruntime by {error:.2e} of the output's scale")
        idle = wait_for_quiet()
        # TVM's thread pool keeps its workers spinning long after a parallel run: with a 50 ms
        # pause the candidate timed after MetaSchedule's build measured at half speed
        samples = interleaved(runs, args.rounds, settle=0.3 if "tvm_tuned" in runs else 0.05)
        # numpy's BLAS at the same thread count: unlimited, it took all 16 cores of a
        # 16-core machine against the others' 2 (OpenBLAS and MKL both obey threadpoolctl)
        with threadpool_limits(limits=args.threads, user_api="blas"):
            samples.update(interleaved(alone, args.rounds, settle=0.05))
        ms = {key: median_ms(v) for key, v in samples.items()}
        for e in candidates.values():
            e.close()
        best = ms.get("tuned", ms["tessel"])
        rows.append((name, kind, flops, ms, best))
        peers = "   ".join(f"{k} {v:8.3f} ms" for k, v in ms.items())
        log(f"{name:11s} {peers}   Tessel {flops / best / 1e6:6.1f} GFLOP/s   idle {idle:.0%}")
    return _report(rows, bool(args.tune_trials), peak)


def _tune(model: onnx.ModelProto, name: str, records: str, trials: int, threads: int) -> None:
    from tessel.tools.tune import main as tune_main

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, f"{name}.onnx")
        onnx.save(model, path)
        code = tune_main([path, "--records", records, "--trials", str(trials), "--threads", str(threads)])
    if code:
        raise SystemExit(f"{name}: tessel-tune exited {code}")


def _geomean(xs: list[float]) -> float:
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def _report(rows, tuned: bool, peak: float) -> int:
    keys = sorted(
        {k for _, _, _, ms, _ in rows for k in ms},
        key=lambda k: ["tessel", "tuned", "ort", "numpy", "tvm", "tvm_tuned"].index(k),
    )
    log("")
    log("| workload | " + " | ".join(f"{k} ms" for k in keys) + " | Tessel GFLOP/s | ort / Tessel |")
    log("|---|" + "---:|" * (len(keys) + 2))
    for name, _, flops, ms, best in rows:
        cells = " | ".join(f"{ms[k]:.3f}" if k in ms else "–" for k in keys)
        log(f"| {name} | {cells} | {flops / best / 1e6:.1f} | {ms['ort'] / best:.2f} |")
    convs = [ms["ort"] / best for _, kind, _, ms, best in rows if kind == "conv"]
    dws = [ms["ort"] / best for _, kind, _, ms, best in rows if kind == "depthwise"]
    mm = {name: ms["numpy"] / best for name, kind, _, ms, best in rows if kind == "matmul"}
    of_peak = {name: flops / best / 1e6 / peak for name, kind, flops, _, best in rows if kind == "matmul"}
    tvm = [ms["tvm"] / best for *_, ms, best in rows if "tvm" in ms]
    tvm_tuned = [ms["tvm_tuned"] / best for *_, ms, best in rows if "tvm_tuned" in ms]
    parts = [
        f"matmul1024_vs_numpy={mm.get('matmul1024', float('nan')):.3f}",
        f"matmul512_vs_numpy={mm.get('matmul512', float('nan')):.3f}",
        f"matmul1024_of_peak={of_peak.get('matmul1024', float('nan')):.3f}",
        f"conv_geomean_vs_ort={_geomean(convs):.3f}",
        f"depthwise_geomean_vs_ort={_geomean(dws):.3f}",
        f"vs_tvm={_geomean(tvm_tuned or tvm):.3f}" if tvm else "vs_tvm=nan",
        f"vs_tvm_untuned={_geomean(tvm):.3f}" if tvm else "vs_tvm_untuned=nan",
        f"tuned={'yes' if tuned else 'no'}",
    ]
    log("RESULT cpu_ops " + " ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
