"""Every point of the search space is a valid schedule that computes the same thing.

For small models covering the stage shapes (blocked conv with a fused epilogue, depthwise
conv, matmul with tails, a reduction over a middle axis, softmax, pooling, element-wise
with odd extents), a random knob set per stage is built into a schedule, written as
`sched.stage` text and replayed (so the printer and the applier are exercised too),
compiled and run; the outputs must equal the default schedule's to float rounding."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.passes import PassPipeline

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module, print_module
from tessel.ir.weights import WeightStore, with_weights
from tessel.passes.kernel.loops.apply_sched import schedule_from_stage, stage_from_schedule
from tessel.passes.kernel.to_loops import KernelToLoops
from tessel.passes.sched.default import stage_names
from tessel.passes.tg.to_kernel import TgToKernel
from tessel.pipelines.tensor import graph_passes
from tessel.targets.cpu.runtime import CpuExecutable
from tessel.tune import space

MODELS = {
    "conv_relu": """
    func.func @main(%x: tensor<1x16x10x9xf32>) -> tensor<1x32x10x9xf32> {
      %w = tg.constant dense<0.25> : tensor<32x16x3x3xf32>
      %b = tg.constant dense<0.5> : tensor<32xf32>
      %a = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x10x9xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x10x9xf32>
      %r = tg.relu %a : tensor<1x32x10x9xf32>
      func.return %r : tensor<1x32x10x9xf32>
    }""",
    # a direct blocked convolution (stride 2: a 3x3 stride-1 one is tg-winograd's)
    "conv_stride2": """
    func.func @main(%x: tensor<1x16x10x9xf32>) -> tensor<1x32x5x5xf32> {
      %w = tg.constant dense<0.25> : tensor<32x16x3x3xf32>
      %a = tg.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x10x9xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x5x5xf32>
      func.return %a : tensor<1x32x5x5xf32>
    }""",
    "depthwise": """
    func.func @main(%x: tensor<1x16x7x11xf32>) -> tensor<1x16x4x6xf32> {
      %w = tg.constant dense<0.25> : tensor<16x1x3x3xf32>
      %a = tg.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x7x11xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x6xf32>
      func.return %a : tensor<1x16x4x6xf32>
    }""",
    "matmul": """
    func.func @main(%a: tensor<20x36xf32>, %b: tensor<36x24xf32>) -> tensor<20x24xf32> {
      %y = tg.matmul %a, %b : (tensor<20x36xf32>, tensor<36x24xf32>) -> tensor<20x24xf32>
      %t = tg.tanh %y : tensor<20x24xf32>
      func.return %t : tensor<20x24xf32>
    }""",
    "reduce_softmax_pool": """
    func.func @main(%x: tensor<2x5x7x13xf32>) -> (tensor<2x7x13xf32>, tensor<2x5x7x13xf32>, tensor<2x5x3x6xf32>) {
      %s = tg.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x5x7x13xf32> -> tensor<2x7x13xf32>
      %m = tg.softmax %x {axis = 3 : i64} : tensor<2x5x7x13xf32>
      %p = tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<2x5x7x13xf32>) -> tensor<2x5x3x6xf32>
      func.return %s, %m, %p : tensor<2x7x13xf32>, tensor<2x5x7x13xf32>, tensor<2x5x3x6xf32>
    }""",
    "elementwise": """
    func.func @main(%x: tensor<3x5x37xf32>, %y: tensor<5x1xf32>) -> tensor<3x5x37xf32> {
      %a = tg.mul %x, %y : (tensor<3x5x37xf32>, tensor<5x1xf32>) -> tensor<3x5x37xf32>
      %e = tg.exp %a : tensor<3x5x37xf32>
      func.return %e : tensor<3x5x37xf32>
    }""",
}


def kernels(name: str):
    ctx = make_context()
    store = WeightStore({})
    module = parse_module(ctx, MODELS[name])
    PassPipeline(with_weights((*graph_passes(), TgToKernel()), store)).apply(ctx, module)
    return ctx, module, store


def run(module, store, inputs):
    executable = CpuExecutable(module, store, threads=2)
    try:
        return executable.run(inputs)
    finally:
        executable.close()


def inputs_for(module, seed):
    from tessel.targets.reference.interpreter import entry_function

    rng = np.random.default_rng(seed)
    fn = entry_function(module, None)
    from tessel.ir.signature import inputs

    return [rng.standard_normal(p.shape).astype(np.float32) for p in inputs(fn)]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(MODELS)), st.integers(0, 2**31))
def test_sampled_schedules_compute_the_same(name, seed):
    ctx, module, store = kernels(name)
    xs = inputs_for(parse_module(make_context(), MODELS[name]), seed)
    reference = module.clone()
    PassPipeline((KernelToLoops(),)).apply(ctx, reference)
    want = run(reference, store, xs)
    rng = random.Random(seed)
    text_stages = []
    for fn in [o for o in module.ops if hasattr(o, "sym_name") and "kernel.kernel" in o.attributes]:
        for stage, compute in stage_names(fn):
            schedule = space.loops(compute, space.sample(compute, rng))
            text_stages.append(stage_from_schedule(compute, stage, schedule))
    for s in text_stages:
        module.body.block.add_op(s)
    module = parse_module(ctx, print_module(module))  # the schedules go through text
    PassPipeline((KernelToLoops(),)).apply(ctx, module)
    got = run(module, store, xs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5 * max(1.0, float(np.abs(w).max())))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_knob_value_builds_a_valid_schedule(name):
    """One knob at a time over all its values, from the first value of every other."""
    _, module, _ = kernels(name)
    for fn in [o for o in module.ops if hasattr(o, "sym_name") and "kernel.kernel" in o.attributes]:
        for stage, compute in stage_names(fn):
            values = space.knob_space(compute)
            base = {k: v[0] for k, v in values.items()}
            for knob, options in values.items():
                for option in options:
                    schedule = space.loops(compute, {**base, knob: option})
                    schedule.validate(compute)
                    replayed = schedule_from_stage(compute, stage_from_schedule(compute, stage, schedule))
                    assert [(l.axis, l.extent, l.stride, l.kind, l.clamp) for l in replayed.loops] == [
                        (l.axis, l.extent, l.stride, l.kind, l.clamp) for l in schedule.loops
                    ]
                    assert replayed.acc_at == schedule.acc_at


@pytest.mark.parametrize("name", sorted(MODELS))
def test_default_schedules_survive_text(name):
    """The default schedule written as sched ops and replayed is the same schedule."""
    from tessel.passes.kernel.loops.schedule import default_schedule

    _, module, _ = kernels(name)
    for fn in [o for o in module.ops if hasattr(o, "sym_name") and "kernel.kernel" in o.attributes]:
        for stage, compute in stage_names(fn):
            schedule = default_schedule(compute)
            replayed = schedule_from_stage(compute, stage_from_schedule(compute, stage, schedule))
            assert [(l.axis, l.extent, l.stride, l.kind, l.clamp) for l in replayed.loops] == [
                (l.axis, l.extent, l.stride, l.kind, l.clamp) for l in schedule.loops
            ]
            assert replayed.acc_at == schedule.acc_at


def test_the_space_holds_the_default_register_tile_of_a_blocked_convolution():
    """A blocked convolution's default tile spans two output-channel blocks (`cols_axis`,
    the second axis of schedule.second_axis): a point of the space is that schedule, so
    tuning starts from what the default does, not from one-block tiles below it."""
    from tessel.passes.kernel.loops.schedule import default_schedule

    _, module, _ = kernels("conv_stride2")
    convs = [c for fn in module.ops if "kernel.kernel" in getattr(fn, "attributes", {}) for _, c in stage_names(fn)]
    conv = next(c for c in convs if c.reduce_count)
    default = default_schedule(conv, 512)
    mo = conv.axis_names.index("mo")
    assert space.knob_space(conv)["cols_axis"] == [None, mo]
    tile = [l for l in default.loops[default.acc_at :] if l.axis < conv.spatial_count]
    rows, cols = tile[0], tile[1]
    assert cols.axis == mo and cols.extent == 2
    knobs = {
        "vector": 16,
        "parallel": True,
        "rows_axis": rows.axis,
        "rows": rows.extent,
        "cols": 2,
        "cols_axis": mo,
        "clamp": any(l.clamp for l in default.loops),
        "unroll": True,
        "reduce_order": tuple(range(conv.reduce_count)),
        "outer_order": tuple(range(conv.spatial_count)),
        "block_axis": 0,
        "block": 1,
    }
    sampled = space.loops(conv, knobs)
    sampled.validate(conv)
    key = [(l.axis, l.extent, l.stride, l.kind) for l in sampled.loops]
    assert sorted(key) == sorted((l.axis, l.extent, l.stride, l.kind) for l in default.loops)
    assert sampled.loops[sampled.acc_at :] == default.loops[default.acc_at :]
