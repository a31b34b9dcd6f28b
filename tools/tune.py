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
from collections.abc import Sequence

from tessel.ir.diagnostics import TesselError
from tessel.tools.cli import check_output_path, guarded, parse_bindings, parse_shapes


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
    p.add_argument(
        "--timing",
        choices=["in-model", "cold", "warm"],
        help="where candidates are timed: in-model (swapped into the compiled model, their launch timed in "
        "whole runs of it; the default for .onnx models), cold (alone, caches flushed; the default for .mlir "
        "and --ray) or warm (alone, nothing flushed)",
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
    from tessel.api.tuning import kernel_module as lowered

    return lowered(path, input_shapes=parse_shapes(shapes), bind=parse_bindings(bind))


def tune_command(args: argparse.Namespace) -> int:
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
    from tessel.api.tuning import tune

    report = tune(
        args.model,
        args.target,
        records=args.records,
        trials=args.trials,
        budget=budget,
        input_shapes=parse_shapes(args.input_shape),
        bind=parse_bindings(args.bind),
        search=args.search,
        batch=args.batch,
        workers=args.workers,
        threads=args.threads,
        timeout=args.timeout,
        seed=args.seed,
        ray=args.ray,
        timing=args.timing,
    )
    print(report)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return guarded("tessel-tune", lambda: tune_command(args), args.debug)


if __name__ == "__main__":
    sys.exit(main())
