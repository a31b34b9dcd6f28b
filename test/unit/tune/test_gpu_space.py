"""Every point of the GPU search space is a legal GPU schedule that computes the same thing:
random knob sets per stage (register tiles, cyclic or contiguous, shared-memory tiles with
barriers), written as sched.stage text and replayed with sched.bind and sched.cache_read
(kernel-to-loops{target=gpu}), compiled to PTX (assembled by ptxas where installed) and
run on the emulator (fibers per block where there are barriers), against the CPU
with default schedules; and every knob value alone builds a schedule that validates and
survives text."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.passes import PassPipeline

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module, print_module
from tessel.passes.kernel.loops.apply_sched import schedule_from_stage, stage_from_schedule
from tessel.passes.kernel.to_loops import KernelToLoops
from tessel.passes.sched.default import stage_names
from tessel.targets.gpu.emulate import EmulatedGpuExecutable
from tessel.targets.gpu.nvptx import compile_ptx, emit_ptx_module
from tessel.targets.gpu.ptxas import assemble, find_ptxas
from tessel.tune import gpu_space

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_space import MODELS, inputs_for, kernels, run  # noqa: E402


def _kernel_fns(module):  # noqa: ANN001, ANN202
    return [o for o in module.ops if hasattr(o, "sym_name") and "kernel.kernel" in o.attributes]


@settings(max_examples=16, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(MODELS)), st.integers(0, 2**31))
def test_sampled_gpu_schedules_compute_the_same(name: str, seed: int) -> None:
    ctx, module, store = kernels(name)
    xs = inputs_for(parse_module(make_context(), MODELS[name]), seed)
    reference = module.clone()
    PassPipeline((KernelToLoops(),)).apply(ctx, reference)
    want = run(reference, store, xs)
    rng = random.Random(seed)
    for fn in _kernel_fns(module):
        for stage, compute in stage_names(fn):
            schedule = gpu_space.loops(compute, gpu_space.sample(compute, rng))
            module.body.block.add_op(stage_from_schedule(compute, stage, schedule))
    module = parse_module(ctx, print_module(module))  # the schedules go through text
    PassPipeline((KernelToLoops(target="gpu"),)).apply(ctx, module)
    ptx = compile_ptx(emit_ptx_module(module))
    if find_ptxas() is not None:
        assemble(ptx)
    executable = EmulatedGpuExecutable(module, store, threads=2)
    try:
        got = executable.run(xs)
    finally:
        executable.close()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5 * max(1.0, float(np.abs(w).max())))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_gpu_knob_value_builds_a_valid_schedule(name: str) -> None:
    _, module, _ = kernels(name)
    for fn in _kernel_fns(module):
        for stage, compute in stage_names(fn):
            values = gpu_space.knob_space(compute)
            base = {k: v[0] for k, v in values.items()}
            for knob, options in values.items():
                for option in options:
                    schedule = gpu_space.loops(compute, {**base, knob: option})
                    schedule.validate(compute)
                    assert schedule.is_gpu or all(e == 1 for e in compute.domain[: compute.spatial_count])
                    replayed = schedule_from_stage(compute, stage_from_schedule(compute, stage, schedule), "gpu")
                    assert [(l.axis, l.extent, l.stride, l.kind, l.dim) for l in replayed.loops] == [
                        (l.axis, l.extent, l.stride, l.kind, l.dim) for l in schedule.loops
                    ]
                    assert replayed.acc_at == schedule.acc_at and replayed.shared_at == schedule.shared_at


def test_features_of_gpu_schedules_see_the_grid() -> None:
    from tessel.tune.features import SIZE, features

    _, module, _ = kernels("matmul")
    (fn,) = [f for f in _kernel_fns(module) if "matmul" in f.sym_name.data]
    _, compute = stage_names(fn)[0]
    small = features(
        compute, gpu_space.loops(compute, {"tx": 32, "cols": 1, "ty_axis": 0, "ty": 1, "rows": 1, "unroll_k": 1})
    )
    tiled = features(
        compute, gpu_space.loops(compute, {"tx": 32, "cols": 4, "ty_axis": 0, "ty": 4, "rows": 4, "unroll_k": 4})
    )
    assert small.shape == tiled.shape == (SIZE,) and not np.array_equal(small, tiled)
