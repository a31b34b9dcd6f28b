"""Minimized regression tests for the bugs the fuzzers found. (The bugs the bad-input
corpus found are its own regression tests: test/bad-inputs/, one file per case.)"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.passes import PassPipeline

from tessel.dialects.hev.reference import run_kernel
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import make_context, parse_module, verify
from tessel.passes import all_passes
from tessel.targets.seal.execute import execute
from tessel.targets.seal.params import DEFAULT

T = 65537


@pytest.mark.parametrize(
    "body",
    [
        "%c1 = hev.sub %c0, %c0 : !hev.ct<8>",  # found by test_fuzz_he: SEAL threw "result ciphertext is transparent"
        "%n = hev.negate %c0 : !hev.ct<8>\n  %c1 = hev.add %c0, %n : !hev.ct<8>",
        "%z = hev.encode %b : !hev.vec<8> -> !hev.pt<8>\n  %c1 = hev.multiply_plain %c0, %z : !hev.ct<8>, !hev.pt<8>",
    ],
    ids=["x-x", "x+(-x)", "x*zero-plaintext"],
)
def test_a_program_whose_result_is_exactly_zero_runs_on_seal(body: str) -> None:
    text = f"""
    func.func @p(%a: !hev.vec<8>, %b: !hev.vec<8> {{hev.public}}) -> !hev.vec<8> {{
      %c0 = hev.encrypt %a : !hev.vec<8> -> !hev.ct<8>
      {body}
      %out = hev.decrypt %c1 : !hev.ct<8> -> !hev.vec<8>
      func.return %out : !hev.vec<8>
    }}
    """
    module = parse_module(make_context(), text)
    (fn,) = list(module.ops)
    inputs = [np.arange(8) * 7 + 1, np.zeros(8, np.int64)]
    result = execute(fn, inputs, DEFAULT)
    assert list(np.asarray(result.output) % T) == [0] * 8 == list(run_kernel(module, fn, inputs, T) % T)
    assert result.noise_budget > 0


def test_a_cycle_in_a_graph_is_refused_by_the_verifier() -> None:
    """Found by the corpus (opt/tg-cyclic.mlir): xDSL does not check dominance, so
    `%a = tg.add %x, %b` before `%b = tg.relu %a` reached tg-fuse and failed there."""
    text = """
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %a = tg.add %x, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %b = tg.relu %a : tensor<2xf32>
      func.return %b : tensor<2xf32>
    }
    """
    with pytest.raises(TesselError, match=r"'tg.add' op uses %b before it is defined"):
        verify(parse_module(make_context(), text))


def test_float_pass_options_take_integers() -> None:
    """`he-synthesize{budget=20}` was refused: 'Incompatible types: given (20,), expected float'."""
    pipeline = PassPipeline.parse_spec(all_passes(), "he-synthesize{budget=20},he-mod-switch{margin=2}")
    assert pipeline.passes[0].budget == 20 and pipeline.passes[1].margin == 2


def test_a_scalar_stage_schedule_survives_text() -> None:
    """Found by test_fuzz_schedules (long profile): a 0-d stage (relu of a reduce_sum to a
    scalar) was written as `sched.axes []` and read back as 'has no sched.axes', so its
    schedule (a tuning record) could not be replayed."""
    from tessel.compiler import graph_passes
    from tessel.ir.weights import WeightStore, attach
    from tessel.passes.kernel.tg_to_kernel import TgToKernel
    from tessel.passes.schedule.apply_sched import schedule_from_stage, stage_from_schedule
    from tessel.passes.schedule.sched_default import stage_names
    from tessel.ir.source import print_module
    from tessel.tune import space

    text = """
    func.func @main(%in0: tensor<1xf32>) -> (tensor<f32>, tensor<f32>) {
      %0 = tg.reduce_sum %in0 {axes = array<i64: 0>, keepdims = false} : tensor<1xf32> -> tensor<f32>
      %1 = tg.relu %0 : tensor<f32>
      func.return %0, %1 : tensor<f32>, tensor<f32>
    }
    """
    ctx = make_context()
    attach(ctx, WeightStore({}))
    module = parse_module(ctx, text)
    PassPipeline((*graph_passes(), TgToKernel())).apply(ctx, module)
    stages = [(s, c) for fn in module.ops if "kernel.kernel" in fn.attributes for s, c in stage_names(fn)]
    assert any(not c.axis_names for _, c in stages), "the scalar stage is there"
    for stage, compute in stages:
        schedule = space.build(compute, space.DEFAULT)
        written = parse_module(ctx, print_module(stage_from_schedule(compute, stage, schedule))).body.block.first_op
        replayed = schedule_from_stage(compute, written)
        assert [(l.axis, l.extent, l.kind) for l in replayed.loops] == [(l.axis, l.extent, l.kind) for l in schedule.loops]
