"""Tessel's passes, one subpackage per dialect family, registered here for the tools.

Each entry maps a pass name (the kebab-case name of its file) to a factory returning the
pass class, so that `tessel-opt` imports a pass only when a pipeline names it.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Tessel's own passes (the upstream xDSL ones are registered by the opt driver)."""

    def fuse() -> type[ModulePass]:
        from tessel.passes.graph.fuse import TgFuse

        return TgFuse

    def fold_constants() -> type[ModulePass]:
        from tessel.passes.graph.fold_constants import TgFoldConstants

        return TgFoldConstants

    def fold_batchnorm() -> type[ModulePass]:
        from tessel.passes.graph.fold_batchnorm import TgFoldBatchnorm

        return TgFoldBatchnorm

    def plan_memory() -> type[ModulePass]:
        from tessel.passes.graph.plan_memory import TgPlanMemory

        return TgPlanMemory

    def tg_to_kernel() -> type[ModulePass]:
        from tessel.passes.kernel.tg_to_kernel import TgToKernel

        return TgToKernel

    def kernel_to_loops() -> type[ModulePass]:
        from tessel.passes.schedule.kernel_to_loops import KernelToLoops

        return KernelToLoops

    def layout() -> type[ModulePass]:
        from tessel.passes.graph.layout import TgLayout

        return TgLayout

    def conv_transpose_to_conv() -> type[ModulePass]:
        from tessel.passes.graph.conv_transpose import TgConvTransposeToConv

        return TgConvTransposeToConv

    return {
        "sched-default": lambda: __import__("tessel.passes.schedule.sched_default", fromlist=["SchedDefault"]).SchedDefault,
        "tg-layout": layout,
        "tg-conv-transpose-to-conv": conv_transpose_to_conv,
        "coll-synthesize": lambda: __import__("tessel.passes.coll.synthesize", fromlist=["CollSynthesize"]).CollSynthesize,
        "coll-verify": lambda: __import__("tessel.passes.coll.verify", fromlist=["CollVerify"]).CollVerify,
        "he-synthesize": lambda: __import__("tessel.passes.he.synthesize", fromlist=["HeSynthesize"]).HeSynthesize,
        "he-mod-switch": lambda: __import__("tessel.passes.he.mod_switch", fromlist=["HeModSwitch"]).HeModSwitch,
        "he-select-parameters": lambda: __import__("tessel.passes.he.select_parameters", fromlist=["HeSelectParameters"]).HeSelectParameters,
        "kernel-to-loops": kernel_to_loops,
        "tg-to-kernel": tg_to_kernel,
        "tg-plan-memory": plan_memory,
        "tg-fold-constants": fold_constants,
        "tg-fold-batchnorm": fold_batchnorm,
        "tg-fuse": fuse,
        "tg-to-vta": lambda: __import__("tessel.passes.tg.to_vta", fromlist=["TgToVta"]).TgToVta,
        "vta-codegen": lambda: __import__("tessel.passes.vta.codegen", fromlist=["VtaCodegen"]).VtaCodegen,
        "img-fuse": lambda: __import__("tessel.passes.img.fuse", fromlist=["ImgFuse"]).ImgFuse,
        "img-line-buffers": lambda: __import__("tessel.passes.img.line_buffers", fromlist=["ImgLineBuffers"]).ImgLineBuffers,
        "img-rates": lambda: __import__("tessel.passes.img.rates", fromlist=["ImgRates"]).ImgRates,
        "img-infer-bounds": lambda: __import__("tessel.passes.img.infer_bounds", fromlist=["ImgInferBounds"]).ImgInferBounds,
        "img-hoist-reductions": lambda: __import__("tessel.passes.img.hoist_reductions", fromlist=["ImgHoistReductions"]).ImgHoistReductions,
        "img-partition": lambda: __import__("tessel.passes.img.partition", fromlist=["ImgPartition"]).ImgPartition,
    }
