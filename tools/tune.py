"""tessel-tune: search schedules for a model's kernels, measured on this machine.

Examples:
  tessel-tune model.onnx --target cpu --trials 200 --records tune.jsonl
  tessel-tune model.onnx --target cpu --budget 10m --records tune.jsonl --workers 2
  tessel-tune kernels.mlir --target cpu --trials 64 --records tune.jsonl --search random
  tessel-run model.onnx --target cpu --records tune.jsonl --time 20     # use the best schedules
  tessel-tune model.onnx --target gpu --trials 200 --records gpu.jsonl   # on this machine's NVIDIA GPU
  tessel-run model.onnx --target gpu --records gpu.jsonl --time 20

The model (ONNX, or tg / kernel-level IR) is lowered to kernels; every kernel.compute
stage is a task (identical stages are one). Candidates are drawn from each stage's sketch,
ranked by a gradient-boosted cost model trained on the records (`--search evolve`, Ansor's
evolutionary search, or `anneal`, TVM's simulated annealing; `random` for comparison),
built in `--workers` processes, checked against the default schedule and timed one at a
time. Every measurement is appended to the records file; rerun the same command after an
interruption and it resumes where the records end (--trials counts what is recorded).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tessel.ir.diagnostics import TesselError
from tessel.tools.cli import check_output_path, guarded, parse_bindings, parse_shapes

if TYPE_CHECKING:
    import numpy as np


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tessel-tune", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("model", help="an .onnx model, or a .mlir module (tg, or kernel IR after tg-to-kernel)")
    p.add_argument(
        "--target", default="cpu", help="the target to tune for: cpu, or gpu (measured on this machine's GPU)"
    )
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--trials", type=int, help="measurements in all (default 64)")
    budget.add_argument("--budget", metavar="TIME", help="wall-clock budget: 90s, 10m, 1h")
    p.add_argument("--records", metavar="JSONL", required=True, help="the tuning log to append to and resume from")
    p.add_argument(
        "--search", choices=["evolve", "anneal", "random"], default="evolve", help="candidate search (default evolve)"
    )
    p.add_argument("--batch", type=int, default=8, help="candidates per measured batch (default 8)")
    p.add_argument("--workers", type=int, default=2, help="processes building candidates (default 2)")
    p.add_argument("--threads", type=int, default=2, help="threads a candidate runs on (default 2)")
    p.add_argument(
        "--timeout", type=float, default=60.0, help="seconds before a build or run counts as failed (default 60)"
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="measure on a Ray cluster: auto, ray://HOST:PORT, or local (needs the 'ray' extra)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bind", action="append", default=[], metavar="NAME=FILE.npy", help="ONNX: fix an input to a value")
    p.add_argument(
        "--input-shape", action="append", default=[], metavar="NAME=D0,D1,...", help="ONNX: static input shape"
    )
    p.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    return p


def parse_budget(text: str) -> float:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not m:
        raise TesselError(f"--budget: expected a time such as 90s, 10m or 1h, got '{text}'")
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def kernel_module(path: str, bind: list[str], shapes: list[str]):
    """The model at kernel level (after tg-to-kernel), with its weights."""
    from tessel.dialects.context import make_context
    from tessel.frontends.onnx import import_model, load_model
    from tessel.ir.source import read_module, verify
    from tessel.ir.weights import WeightStore
    from tessel.pipelines.tensor import lower

    weights: Mapping[str, np.ndarray]
    if path.endswith(".onnx"):
        result = import_model(
            load_model(path), source=path, bind=parse_bindings(bind), input_shapes=parse_shapes(shapes)
        )
        module, weights = result.module, result.weights
    else:
        module = read_module(make_context(), path)
        weights = WeightStore.for_module(module, path)
    verify(module)
    if any(op.dialect_name() == "tg" for op in module.walk()):
        lower(module, weights, stop_after="tg-to-kernel")
    return module


def tune_command(args: argparse.Namespace) -> int:
    from tessel.passes.sched.tuning.records import Records
    from tessel.tune.task import extract_tasks
    from tessel.tune.tuner import Options, Tuner

    if args.target not in ("cpu", "gpu"):
        raise TesselError(f"--target {args.target}: the cpu and gpu targets can be tuned")
    if args.target == "gpu" and args.ray:
        raise TesselError("--ray measures on CPUs; the gpu target is measured on this machine's GPU")
    for name in ("batch", "workers", "threads"):
        if getattr(args, name) < 1:
            raise TesselError(f"--{name} must be at least 1")
    if args.trials is not None and args.trials < 1:
        raise TesselError("--trials must be at least 1")
    if not args.timeout > 0:
        raise TesselError(f"--timeout must be positive seconds, got {args.timeout:g}")
    check_output_path(args.records, "--records")
    budget = parse_budget(args.budget) if args.budget else None
    trials = args.trials if args.trials is not None or budget is not None else 64
    records = Records(args.records)
    host = None
    if args.target == "gpu":  # needs the GPU now: candidates are measured on it
        from tessel.targets.gpu.runtime import device_description

        host = device_description(hint="tuning for the GPU measures every candidate on one")
    tasks = extract_tasks(kernel_module(args.model, args.bind, args.input_shape), host)
    if not tasks:
        raise TesselError(f"{args.model}: no kernel stages to tune")
    print(
        f"tuning {len(tasks)} stages of {args.model} ({len(records.entries)} records in {args.records})",
        file=sys.stderr,
    )
    options = Options(
        trials=trials,
        budget_s=budget,
        strategy=args.search,
        batch=args.batch,
        workers=args.workers,
        threads=args.threads,
        timeout=args.timeout,
        seed=args.seed,
        ray=args.ray,
        target=args.target,
        host=host,
    )
    states = Tuner(tasks, records, options).run()
    print(f"{'stage':48s} {'launches':>8s} {'default ms':>11s} {'tuned ms':>9s} {'speedup':>8s} {'GFLOP/s':>8s}")
    before = after = 0.0
    for s in states:
        d = s.default_s * 1e3 if s.default_s else float("nan")
        b = s.best_s * 1e3 if s.best_s else float("nan")
        if s.default_s and s.best_s:
            before += s.task.weight * s.default_s
            after += s.task.weight * s.best_s
        if not s.best_s:  # the budget ran out before this stage's first batch
            print(f"{s.task.stage[:48]:48s} {s.task.weight:8d}   not measured (raise --trials or --budget)")
            continue
        print(
            f"{s.task.stage[:48]:48s} {s.task.weight:8d} {d:11.3f} {b:9.3f} {d / b if d == d else float('nan'):7.2f}x {s.gflops:8.1f}"
        )
    if after:
        print(
            f"sum over launches: {before * 1e3:.3f} ms with default schedules, {after * 1e3:.3f} ms tuned ({before / after:.2f}x)"
        )
    print(f"records: {args.records} ({len(records.entries)} entries)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return guarded("tessel-tune", lambda: tune_command(args), args.debug)


if __name__ == "__main__":
    sys.exit(main())
