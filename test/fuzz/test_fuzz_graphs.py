"""Differential fuzzing of the tensor path: random well-typed tg graphs through every
graph pass alone and through the whole CPU pipeline must compute what the reference
semantics compute (bit for bit where a pass only regroups or annotates)."""

from __future__ import annotations

from profile import fuzz

from hypothesis import given
from hypothesis import strategies as st
from tg_graphs import Graph, apply, assert_bitwise_equal, assert_close, graphs

from tessel.ir.weights import WeightStore
from tessel.passes.tg.conv_transpose_to_conv import TgConvTransposeToConv
from tessel.passes.tg.drop_padding_taps import TgDropPaddingTaps
from tessel.passes.tg.fold_batchnorm import TgFoldBatchnorm
from tessel.passes.tg.fold_constants import TgFoldConstants
from tessel.passes.tg.fuse import TgFuse
from tessel.passes.tg.layout import TgLayout
from tessel.passes.tg.plan_memory import TgPlanMemory
from tessel.passes.tg.split_concat import TgSplitConcat
from tessel.targets.reference.interpreter import run

# (pass, exact): the regrouping passes keep every float operation as it was
PASSES = {
    "tg-fuse": (TgFuse, True),
    "tg-plan-memory": (TgPlanMemory, True),
    "tg-split-concat": (TgSplitConcat, True),
    "tg-fold-batchnorm": (TgFoldBatchnorm, False),
    "tg-fold-constants": (TgFoldConstants, False),
    "tg-layout": (TgLayout, False),
    "tg-conv-transpose-to-conv": (TgConvTransposeToConv, False),
    "tg-drop-padding-taps": (TgDropPaddingTaps, False),
}


@fuzz(ci=60, long=25000)
@given(graphs(), st.sampled_from(sorted(PASSES)))
def test_each_graph_pass_alone_keeps_the_semantics(graph: Graph, name: str) -> None:
    make, exact = PASSES[name]
    store = WeightStore(dict(graph.weights))
    after = apply(graph.module, make(), store=store)
    want = run(graph.module, graph.inputs, graph.weights)
    got = run(after, graph.inputs, store)
    (assert_bitwise_equal if exact else assert_close)(got, want)


@fuzz(ci=20, long=4000)
@given(graphs(steps=8))
def test_whole_cpu_pipeline_matches_the_reference(graph: Graph) -> None:
    from tessel.pipelines.tensor import compile_for_cpu

    want = run(graph.module, graph.inputs, graph.weights)
    executable, _ = compile_for_cpu(graph.module.clone(), dict(graph.weights), threads=2)
    try:
        assert_close(executable.run(list(graph.inputs)), want)
    finally:
        executable.close()
