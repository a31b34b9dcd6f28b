"""Every tg op declares its TVM fusion category next to its definition."""

from __future__ import annotations

from tessel.dialects import tg
from tessel.dialects.tg import Fusion, FusionCategory, fusion_category

EXPECTED = {
    FusionCategory.COMPLEX_OUT_FUSABLE: {
        "tg.matmul",
        "tg.gemm",
        "tg.matmul_integer",
        "tg.conv2d_integer",
        "tg.conv2d_integer_packed",
        "tg.conv2d_winograd",
        "tg.roi_align",
        "tg.conv2d",
        "tg.conv3d",
        "tg.conv_transpose2d",
        "tg.conv_transpose3d",
        "tg.max_pool2d",
        "tg.max_pool3d",
        "tg.avg_pool2d",
        "tg.avg_pool3d",
        "tg.lp_pool2d",
        "tg.lp_pool3d",
        "tg.global_avg_pool2d",
        "tg.conv2d_nchwc",
        "tg.dense_packed",
        "tg.dense_packed_bf16",
        "tg.conv2d_nchwc_bf16",
        "tg.depthwise_conv2d_nchwc",
    },
    FusionCategory.REDUCTION: {
        "tg.reduce_sum",
        "tg.reduce_mean",
        "tg.reduce_prod",
        "tg.reduce_max",
        "tg.reduce_min",
        "tg.arg_max",
        "tg.arg_min",
        "tg.cumsum",
        "tg.cumprod",
        # each output element reduces over the updates that name it (passes/tg/lowering/scatter.py)
        "tg.scatter_elements",
        "tg.scatter_nd",
        "tg.col2im",
    },
    # several stages or a data-dependent shape: nothing fuses into them
    FusionCategory.OPAQUE: {
        "tg.weight",
        "tg.constant",
        "tg.attention",
        "tg.layer_norm",
        "tg.softmax",
        "tg.log_softmax",
        "tg.top_k",
        "tg.nonzero",
        "tg.compress",
        "tg.unique",
    },
}


def test_each_op_declares_one_category():
    for op in tg.OPS:
        traits = [t for t in op.traits if isinstance(t, Fusion)]
        assert len(traits) == 1, op.name


def test_categories():
    for op in tg.OPS:
        expected = next((c for c, names in EXPECTED.items() if op.name in names), FusionCategory.INJECTIVE)
        assert op.get_trait(Fusion).category is expected, op.name


def test_ops_outside_tg_are_opaque():
    from xdsl.dialects.func import ReturnOp

    assert fusion_category(ReturnOp()) is FusionCategory.OPAQUE
