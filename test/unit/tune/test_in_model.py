"""Timing candidates inside their model (tune/in_model.py): every stage the model launches
alone is timed there, swapping a candidate in leaves the model computing what it did, a
stage the model does not launch alone is reported as such (and timed cold), and the
records keep the two kinds of time apart. After a search (tune/settle.py) every tuned
stage gets two "joint" records, its best schedule's time in the tuned model and the
default's in the default model, the log's best for it becomes the faster of the two, and
the stages the default won are named."""

from __future__ import annotations

import json
import random

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tessel.api.tuning import kernel_module
from tessel.passes.sched.tuning.records import Records
from tessel.targets.cpu import cpu_target
from tessel.tune import space
from tessel.tune.in_model import ModelBench, ModelSource
from tessel.tune.measure import run_job
from tessel.tune.settle import settle
from tessel.tune.task import extract_tasks
from tessel.tune.tuner import Options, Tuner


def conv_net() -> onnx.ModelProto:
    """A convolution, a ReLU, a product and a softmax: several launches, each with weights."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((16, 3, 3, 3)).astype(np.float32) / 5, "w")
    g = numpy_helper.from_array(rng.standard_normal((16 * 12 * 12, 32)).astype(np.float32) / 40, "g")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Flatten", ["r"], ["f"]),
        helper.make_node("MatMul", ["f", "g"], ["m"]),
        helper.make_node("Softmax", ["m"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "conv_net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 32])],
        [w, g],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


SHAPES = {"x": [1, 3, 12, 12]}


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> tuple[ModelSource, list]:
    path = tmp_path_factory.mktemp("in_model") / "conv_net.onnx"
    onnx.save(conv_net(), path)
    source = ModelSource.of(str(path), SHAPES, None)
    return source, extract_tasks(kernel_module(str(path), input_shapes=SHAPES))


@pytest.fixture(scope="module")
def bench(model):
    b = ModelBench(model[0], threads=2)
    yield b
    b.close()


def outputs(bench: ModelBench) -> np.ndarray:
    bench.plan.run()
    return bench._ports[1][0].copy()


def test_every_launched_stage_is_timed_in_the_model(model, bench) -> None:
    _, tasks = model
    timed = [t for t in tasks if t.stage in bench.launch]
    assert timed, f"no task of {[t.stage for t in tasks]} among {list(bench.launch)}"
    for t in timed:
        median, fastest = bench.timings(t, None, repeats=3)
        assert 0 < fastest <= median


def test_a_candidate_leaves_the_model_as_it_was(model, bench) -> None:
    _, tasks = model
    want = outputs(bench)
    table = bench.plan.table.copy()
    rng = random.Random(1)
    for t in tasks:
        if t.stage not in bench.launch:
            continue
        op, _ = t.compute_op()
        for _ in range(2):
            knobs = space.sample(op, rng)
            assert bench.timings(t, space.build(op, knobs), repeats=1) is not None
    np.testing.assert_array_equal(bench.plan.table[:, [0, 2, 3]], table[:, [0, 2, 3]])
    np.testing.assert_array_equal(outputs(bench), want)


def test_a_stage_the_model_does_not_launch_alone_is_not_timed_there(model, bench) -> None:
    _, tasks = model
    t = tasks[0]
    renamed = type(t)(t.key, "k99_nowhere__s0", t.kernel_text, t.index, t.flops, t.weight)
    assert bench.timings(renamed, None, repeats=1) is None
    median, fastest, timing = run_job(renamed, space.DEFAULT, 1, 1, "in-model", model[0])
    assert timing == "cold" and 0 < fastest <= median


def test_run_job_says_where_it_timed(model) -> None:
    source, tasks = model
    t = next(t for t in tasks if "conv" in t.stage)
    assert run_job(t, space.DEFAULT, 1, 2, "in-model", source)[2] == "in-model"
    assert run_job(t, space.DEFAULT, 1, 2, "warm", source)[2] == "warm"
    assert run_job(t, space.DEFAULT, 1, 2, "cold", None)[2] == "cold"


def test_best_compares_records_timed_alike(tmp_path) -> None:
    """A log tuned cold and then in the model: the best is among the newest kind only (a
    stage's cold time and its time in the model are not comparable); old records without a
    timing were timed cold."""
    r = Records(tmp_path / "r.jsonl")
    r.append(
        [
            {"key": "a", "knobs": {"x": 1}, "seconds": 1.0, "best": 1.0, "error": None, "schedule": "old"},
            {"key": "a", "knobs": {"x": 2}, "seconds": 3.0, "best": 3.0, "error": None, "schedule": "s2"},
            {"key": "a", "knobs": {"x": 3}, "seconds": 2.0, "best": 2.0, "error": None, "schedule": "s3"},
        ]
    )
    assert r.best("a")["schedule"] == "old"
    r.entries[1]["timing"] = r.entries[2]["timing"] = "in-model"
    assert r.best("a")["schedule"] == "s3"
    r.append([{"key": "a", "knobs": {"x": 4}, "seconds": 0.5, "best": 0.5, "error": None, "timing": "cold"}])
    assert r.best("a")["knobs"] == {"x": 4}
    # a failed candidate was never timed: it does not decide which times count
    r.append([{"key": "a", "knobs": {"x": 5}, "seconds": None, "best": None, "error": "run: wrong result"}])
    r.entries[-2].update(timing="in-model", seconds=2.5, best=2.5)
    assert r.best("a")["schedule"] == "s3"


def test_settle_compares_each_tuned_stage_in_the_two_models(model, tmp_path) -> None:
    source, _ = model
    kernels = kernel_module(source.path, input_shapes=SHAPES)
    log = Records(tmp_path / "r.jsonl")
    options = Options(trials=24, batch=4, workers=1, threads=2, timing="in-model", model=source)
    Tuner(extract_tasks(kernels), log, options, log=lambda s: None).run()
    host = cpu_target.current().description
    tuned = {
        e["key"] for e in log.entries if not (log.best(e["key"]) or {"knobs": {"default": 1}})["knobs"].get("default")
    }

    kept = settle(source, log, kernels, host, threads=2, runs=5)

    again = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    joint = [e for e in again if e.get("timing") == "joint"]
    assert {e["key"] for e in joint} <= tuned and joint, "a tuned stage of this model is launched alone"
    for key in {e["key"] for e in joint}:
        pair = [e for e in joint if e["key"] == key]
        assert len(pair) == 2 and sum(bool(e["knobs"].get("default")) for e in pair) == 1
        default, best = sorted(pair, key=lambda e: not e["knobs"].get("default"))
        winner = Records(tmp_path / "r.jsonl").best(key)
        assert winner["timing"] == "joint" and winner["seconds"] == min(default["seconds"], best["seconds"])
        assert (best["stage"] in kept) == (best["seconds"] > default["seconds"])
