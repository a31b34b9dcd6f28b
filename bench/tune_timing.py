"""How well does each way of timing a stage predict its time in the model?

    python -m tessel.bench.tune_timing build/zoo/resnet18.onnx --input-shape input=1,3,224,224

Every stage of the model, under its default schedule, is timed as `tessel-tune --timing`
would time a candidate: alone with its buffers flushed ("cold"), alone with nothing
flushed ("warm"), and swapped into the model ("in-model", tune/in_model.py). Each is
compared with the stage's own launch in plain runs of the model (the plan's clock). Per
way of timing the bench prints the time-weighted mean of |log(timed / in the model)|: 0 is
a perfect prediction. The last line is

    RESULT tune_timing cold=<x> warm=<x> in_model=<x> stages=<n>
"""

from __future__ import annotations

import argparse
import math
import sys

from tessel.bench.common import environment, log, wait_for_quiet


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model", help="an ONNX model")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0,D1,...")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=30, help="model runs for the reference times")
    args = p.parse_args(argv)
    from tessel.api.tuning import kernel_module
    from tessel.tools.cli import parse_shapes
    from tessel.tune.in_model import ModelBench, ModelSource
    from tessel.tune.task import StageRunner, extract_tasks

    shapes = parse_shapes(args.input_shape)
    log(environment(args.threads))
    source = ModelSource.of(args.model, shapes, None)
    tasks = extract_tasks(kernel_module(args.model, input_shapes=shapes))
    bench = ModelBench(source, args.threads)
    wait_for_quiet()
    # each launch's median in plain runs, on the bench's own inputs (the plan keeps them)
    in_model = [ms / 1e3 for _, _, ms in bench.executable.profile(bench.inputs, args.runs)]
    errors: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": [], "in_model": []}
    for task in tasks:
        index = bench.launch.get(task.stage)
        if index is None or in_model[index] <= 0:
            continue  # not launched alone (fused rows)
        truth = float(in_model[index])
        runner = StageRunner(task, None, threads=args.threads)
        timed = {
            "cold": runner.timings(5, 0.01, cold=True)[0],
            "warm": runner.timings(5, 0.01, cold=False)[0],
        }
        del runner
        swapped = bench.timings(task, None, 5)
        if swapped is None:
            continue
        timed["in_model"] = swapped[0]
        weight = truth * task.weight
        for way, seconds in timed.items():
            errors[way].append((abs(math.log(seconds / truth)), weight))
        log(
            f"{task.stage:40s} in the model {truth * 1e3:8.4f} ms   "
            + "   ".join(f"{way} {seconds * 1e3:8.4f}" for way, seconds in timed.items())
        )
    bench.close()
    score = {way: sum(e * w for e, w in xs) / sum(w for _, w in xs) for way, xs in errors.items() if xs}
    log("time-weighted mean |log(timed / in the model)|: " + ", ".join(f"{k} {v:.3f}" for k, v in score.items()))
    print(
        f"RESULT tune_timing cold={score['cold']:.3f} warm={score['warm']:.3f} "
        f"in_model={score['in_model']:.3f} stages={len(errors['cold'])}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
