"""Differential fuzzing of schedules: random tg graphs lowered to kernels, then every stage
given a random point of the tuner's search space (tune/space.py), written as sched IR and
read back, must compute what the stages compute under their default schedules."""

from __future__ import annotations

import random
from profile import fuzz

from hypothesis import given
from hypothesis import strategies as st
from tg_graphs import Graph, assert_close, graphs
from xdsl.passes import PassPipeline

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module, print_module
from tessel.ir.weights import WeightStore, with_weights
from tessel.passes.kernel.loops.apply_sched import stage_from_schedule
from tessel.passes.kernel.to_loops import KernelToLoops
from tessel.passes.sched.default import stage_names
from tessel.passes.tg.to_kernel import TgToKernel
from tessel.pipelines.tensor import graph_passes
from tessel.targets.cpu.runtime import CpuExecutable
from tessel.tune import space


def execute(module, store, inputs):
    executable = CpuExecutable(module, store, threads=2)
    try:
        return executable.run(list(inputs))
    finally:
        executable.close()


@fuzz(ci=12, long=3000)
@given(graphs(steps=6), st.integers(0, 2**31))
def test_random_schedules_from_the_space_equal_the_default(graph: Graph, seed: int) -> None:
    ctx = make_context()
    store = WeightStore(dict(graph.weights))
    module = graph.module.clone()
    PassPipeline(with_weights((*graph_passes(), TgToKernel()), store)).apply(ctx, module)
    reference = module.clone()
    PassPipeline((KernelToLoops(),)).apply(ctx, reference)
    want = execute(reference, store, graph.inputs)
    rng = random.Random(seed)
    stages = []
    for fn in [o for o in module.ops if "kernel.kernel" in o.attributes]:
        for stage, compute in stage_names(fn):
            stages.append(stage_from_schedule(compute, stage, space.loops(compute, space.sample(compute, rng))))
    for s in stages:
        module.body.block.add_op(s)
    module = parse_module(ctx, print_module(module))  # the schedules go through text
    PassPipeline((KernelToLoops(),)).apply(ctx, module)
    assert_close(execute(module, store, graph.inputs), want)
