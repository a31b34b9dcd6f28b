"""tg-to-vta: place int8 layers on the VTA accelerator.

An int8 layer in `tg` is the chain TVM's VTA flow also starts from (after quantization):

    %xi = tg.cast %x : i8 -> i32                   %wi = tg.cast %w : i8 -> i32   (or an i32
    %c  = tg.conv2d %xi, %wi, %b : ... i32                       tg.constant that fits int8)
    [%r = tg.relu %c]  [%s = tg.shift_right %r {amount = k}]  [%r2 = tg.relu %s]
    [%l = tg.clip %s {min, max}]
    %y  = tg.cast %l : i32 -> i8

or the same around `tg.matmul` (M,K)x(K,N) with an optional `tg.add` of an (N,) bias, which
VTA runs as a 1x1 convolution over a 1 x M image (the transposes around it are tg ops).
Each chain whose intermediate values have no other use becomes one `vta.conv2d`. Chains VTA
cannot run (input channels not a multiple of 16, dilation, groups, unequal strides) stay in
`tg` for the CPU, and the reason is recorded on the conv op as `vta.host` so reports can say
why. The rewrite is exact: ReLU before or after an arithmetic shift gives the same value,
and the hardware's int32 wrap-around matches `tg`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.transforms.dead_code_elimination import region_dce

from tessel.dialects import tg, vta
from tessel.dialects.tg.base import ints
from tessel.dialects.vta import HOST_ATTR
from tessel.dialects.vta.layer import INT32_MAX, INT32_MIN, Conv2dLayer


def _elem(v: SSAValue) -> str:
    return str(v.type.element_type)  # type: ignore[attr-defined]


def _single_use(v: SSAValue) -> bool:
    return v.has_one_use()


@dataclass
class _Epilogue:
    shift: int = 0
    relu: bool = False
    clip: tuple[int, int] = (INT32_MIN, INT32_MAX)


def _epilogue(root: tg.CastOp) -> tuple[SSAValue, _Epilogue, list[Operation]] | None:
    """Walk up from the i32 -> i8 cast through clip / relu / shift_right; the value they start from."""
    ep, ops = _Epilogue(), []
    v = root.input
    seen_shift = seen_clip = False
    while True:
        op = v.owner
        if not isinstance(op, Operation) or not _single_use(v):
            return v, ep, ops
        if isinstance(op, tg.ClipOp) and not seen_clip and not seen_shift and not ep.relu:
            lo = op.min.value.data if op.min is not None else INT32_MIN  # type: ignore[attr-defined]
            hi = op.max.value.data if op.max is not None else INT32_MAX  # type: ignore[attr-defined]
            ep.clip, seen_clip = (lo, hi), True
        elif isinstance(op, tg.ReluOp) and not ep.relu:
            ep.relu = True
        elif isinstance(op, tg.ShiftRightOp) and not seen_shift:
            ep.shift, seen_shift = op.amount.value.data, True
        else:
            return v, ep, ops
        ops.append(op)
        v = op.operands[0]


def _int8_source(v: SSAValue, rewriter: PatternRewriter) -> SSAValue | None:
    """The int8 value behind an i32 operand: a widening cast's input, or a narrowed constant."""
    op = v.owner
    if isinstance(op, tg.CastOp) and _elem(op.input) == "i8":
        return op.input
    if isinstance(op, tg.ConstantOp):
        a = tg.constant_value(op)
        if a.min(initial=0) >= -128 and a.max(initial=0) <= 127:
            new = tg.constant_op(a.astype(np.int8))
            rewriter.insert(new, InsertPoint.before(op))
            return new.results[0]
    return None


class ConvToVta(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, root: tg.CastOp, rewriter: PatternRewriter, /) -> None:
        if _elem(root.input) != "i32" or _elem(root.result) != "i8":
            return
        start, ep, chain = _epilogue(root)
        conv = start.owner
        if isinstance(conv, tg.Conv2dOp):
            self._conv(root, conv, ep, rewriter)
        elif isinstance(conv, tg.AddOp | tg.MatmulOp):
            self._matmul(root, conv, ep, rewriter)

    def _conv(self, root: tg.CastOp, conv: tg.Conv2dOp, ep: _Epilogue, rewriter: PatternRewriter) -> None:
        if not _single_use(conv.result) or _elem(conv.result) != "i32":
            return
        strides, dil = ints(conv.properties, "strides"), ints(conv.properties, "dilations")
        pads = ints(conv.properties, "pads")  # (top, left, bottom, right)
        groups = conv.groups.value.data  # type: ignore[attr-defined]
        x = _int8_source(conv.input, rewriter)
        w = _int8_source(conv.weight, rewriter)
        c = conv.input.type.get_shape()[1]  # type: ignore[attr-defined]
        why = None
        if x is None or w is None:
            why = "the input or weight is not a widened int8 value"
        elif groups != 1 or set(dil) != {1} or strides[0] != strides[1]:
            why = "grouped, dilated or unequal-stride convolution"
        else:
            layer = Conv2dLayer("conv", c, 1, 1, conv.weight.type.get_shape()[0], (1, 1), 1, pads,  # type: ignore[attr-defined]
                                conv.bias is not None, ep.shift, ep.relu, ep.clip)  # fmt: skip
            why = layer.why_not_vta()
        if why is not None:
            conv.attributes[HOST_ATTR] = StringAttr(why)
            return
        bias = conv.bias
        new = _layer_op([x, w] + ([bias] if bias is not None else []), root.result.type, strides[0], pads, ep)  # type: ignore[list-item]
        rewriter.replace(root, new)

    def _matmul(self, root: tg.CastOp, op: Operation, ep: _Epilogue, rewriter: PatternRewriter) -> None:
        bias = None
        mm = op
        if isinstance(op, tg.AddOp):
            mm = op.operands[0].owner
            bias = op.operands[1]
            if not isinstance(mm, tg.MatmulOp) or not _single_use(op.operands[0]) or bias.type.get_shape() != (mm.results[0].type.get_shape()[-1],):  # type: ignore[attr-defined]
                return
        if not _single_use(mm.results[0]) or _elem(mm.results[0]) != "i32":
            return
        a_t, b_t = mm.operands[0].type, mm.operands[1].type
        if len(a_t.get_shape()) != 2 or len(b_t.get_shape()) != 2:  # type: ignore[attr-defined]
            return
        (m, k), (_, n) = a_t.get_shape(), b_t.get_shape()  # type: ignore[attr-defined]
        x = _int8_source(mm.operands[0], rewriter)
        w = _int8_source(mm.operands[1], rewriter)
        layer = Conv2dLayer("matmul", k, 1, m, n, (1, 1), 1, (0, 0, 0, 0), bias is not None, ep.shift, ep.relu, ep.clip)
        why = "the operands are not widened int8 values" if x is None or w is None else layer.why_not_vta()
        if why is not None:
            mm.attributes[HOST_ATTR] = StringAttr(why)
            return
        # (M, K) -> (1, K, 1, M) image, (K, N) -> (N, K, 1, 1) weights; the result back to (M, N)
        build: list[Operation] = []

        def add(o: Operation) -> SSAValue:
            build.append(o)
            return o.results[0]

        i8 = builtin.IntegerType(8)
        xt = add(tg.TransposeOp.make([x], {"perm": DenseArrayBase.from_list(i64, [1, 0])}))
        image = add(tg.ReshapeOp.make([xt], result_types=[TensorType(i8, [1, k, 1, m])]))
        wt = add(tg.TransposeOp.make([w], {"perm": DenseArrayBase.from_list(i64, [1, 0])}))
        weight = add(tg.ReshapeOp.make([wt], result_types=[TensorType(i8, [n, k, 1, 1])]))
        conv = add(_layer_op([image, weight] + ([bias] if bias is not None else []), TensorType(i8, [1, n, 1, m]), 1, (0, 0, 0, 0), ep))
        flat = add(tg.ReshapeOp.make([conv], result_types=[TensorType(i8, [n, m])]))
        out = tg.TransposeOp.make([flat], {"perm": DenseArrayBase.from_list(i64, [1, 0])})
        rewriter.replace(root, [*build, out])


def _layer_op(operands: list[SSAValue], result_type: TensorType, stride: int, pads: tuple[int, int, int, int], ep: _Epilogue) -> vta.Conv2dOp:
    return vta.Conv2dOp.make(operands, result_type, stride, pads, ep.shift, ep.relu, ep.clip)


@dataclass(frozen=True)
class TgToVta(ModulePass):
    name = "tg-to-vta"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(ConvToVta(), apply_recursively=False).rewrite_module(op)
        for region in op.regions:
            region_dce(region)
