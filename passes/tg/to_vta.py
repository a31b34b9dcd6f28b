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
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tessel.dialects import tg, vta
from tessel.dialects.tg.base import integer, ints
from tessel.dialects.vta import HOST_ATTR
from tessel.dialects.vta.layer import INT32_MAX, INT32_MIN, Conv2dLayer

from ._rewrite import rewrite_once


def _shape(v: SSAValue) -> tuple[int, ...]:
    return v.type.get_shape() if isinstance(v.type, TensorType) else ()


def _elem(v: SSAValue) -> str:
    return str(v.type.element_type) if isinstance(v.type, TensorType) else ""


def _single_use(v: SSAValue) -> bool:
    return v.has_one_use()


def _bound(attr: Attribute | None, default: int) -> int:
    return attr.value.data if isinstance(attr, IntegerAttr) else default


@dataclass
class _Epilogue:
    shift: int = 0
    relu: bool = False
    clip: tuple[int, int] = (INT32_MIN, INT32_MAX)


def _epilogue(root: tg.CastOp) -> tuple[SSAValue, _Epilogue]:
    """Walk up from the i32 -> i8 cast through clip / relu / shift_right; the value they start from."""
    ep = _Epilogue()
    v = root.input
    seen_shift = seen_clip = False
    while True:
        op = v.owner
        if not isinstance(op, Operation) or not _single_use(v):
            return v, ep
        if isinstance(op, tg.ClipOp) and not seen_clip and not seen_shift and not ep.relu:
            ep.clip, seen_clip = (_bound(op.min, INT32_MIN), _bound(op.max, INT32_MAX)), True
        elif isinstance(op, tg.ReluOp) and not ep.relu:
            ep.relu = True
        elif isinstance(op, tg.ShiftRightOp) and not seen_shift:
            ep.shift, seen_shift = op.amount.value.data, True
        else:
            return v, ep
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


def _stays_on_host(op: Operation, why: str) -> None:
    """Record on the op why VTA cannot run its chain (reports show it; the op runs on the CPU)."""
    op.attributes[HOST_ATTR] = StringAttr(why)


def _transpose(v: SSAValue) -> Operation:
    return tg.TransposeOp.make([v], {"perm": DenseArrayBase.from_list(i64, [1, 0])})


class ConvToVta(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, root: tg.CastOp, rewriter: PatternRewriter, /) -> None:
        if _elem(root.input) != "i32" or _elem(root.result) != "i8" or not isinstance(root.result.type, TensorType):
            return
        start, ep = _epilogue(root)
        conv = start.owner
        if isinstance(conv, tg.Conv2dOp):
            self._conv(root, root.result.type, conv, ep, rewriter)
        elif isinstance(conv, tg.AddOp | tg.MatmulOp):
            self._matmul(root, conv, ep, rewriter)

    def _conv(
        self, root: tg.CastOp, result_type: TensorType, conv: tg.Conv2dOp, ep: _Epilogue, rewriter: PatternRewriter
    ) -> None:
        if not _single_use(conv.result) or _elem(conv.result) != "i32":
            return
        strides, dil = ints(conv.properties, "strides"), ints(conv.properties, "dilations")
        top, left, bottom, right = ints(conv.properties, "pads")
        pads = (top, left, bottom, right)
        groups = integer(conv.properties, "groups")
        x = _int8_source(conv.input, rewriter)
        w = _int8_source(conv.weight, rewriter)
        c = _shape(conv.input)[1]
        if x is None or w is None:
            return _stays_on_host(conv, "the input or weight is not a widened int8 value")
        if groups != 1 or set(dil) != {1} or strides[0] != strides[1]:
            return _stays_on_host(conv, "grouped, dilated or unequal-stride convolution")
        layer = Conv2dLayer(
            "conv", c, 1, 1, _shape(conv.weight)[0], (1, 1), 1, pads, conv.bias is not None, ep.shift, ep.relu, ep.clip
        )
        if (why := layer.why_not_vta()) is not None:
            return _stays_on_host(conv, why)
        operands = [x, w] + ([conv.bias] if conv.bias is not None else [])
        rewriter.replace(root, _layer_op(operands, result_type, strides[0], pads, ep))

    def _matmul(self, root: tg.CastOp, op: Operation, ep: _Epilogue, rewriter: PatternRewriter) -> None:
        bias = None
        mm = op
        if isinstance(op, tg.AddOp):
            owner = op.operands[0].owner
            bias = op.operands[1]
            if (
                not isinstance(owner, tg.MatmulOp)
                or not _single_use(op.operands[0])
                or _shape(bias) != (_shape(owner.results[0])[-1],)
            ):
                return
            mm = owner
        if not _single_use(mm.results[0]) or _elem(mm.results[0]) != "i32":
            return
        a_shape, b_shape = _shape(mm.operands[0]), _shape(mm.operands[1])
        if len(a_shape) != 2 or len(b_shape) != 2:
            return
        (m, k), (_, n) = a_shape, b_shape
        x = _int8_source(mm.operands[0], rewriter)
        w = _int8_source(mm.operands[1], rewriter)
        layer = Conv2dLayer("matmul", k, 1, m, n, (1, 1), 1, (0, 0, 0, 0), bias is not None, ep.shift, ep.relu, ep.clip)
        if x is None or w is None:
            return _stays_on_host(mm, "the operands are not widened int8 values")
        if (why := layer.why_not_vta()) is not None:
            return _stays_on_host(mm, why)
        # (M, K) -> (1, K, 1, M) image, (K, N) -> (N, K, 1, 1) weights; the result back to (M, N)
        build: list[Operation] = []

        def add(o: Operation) -> SSAValue:
            build.append(o)
            return o.results[0]

        i8 = builtin.IntegerType(8)
        xt = add(_transpose(x))
        image = add(tg.ReshapeOp.make([xt], result_types=[TensorType(i8, [1, k, 1, m])]))
        wt = add(_transpose(w))
        weight = add(tg.ReshapeOp.make([wt], result_types=[TensorType(i8, [n, k, 1, 1])]))
        conv = add(
            _layer_op(
                [image, weight] + ([bias] if bias is not None else []),
                TensorType(i8, [1, n, 1, m]),
                1,
                (0, 0, 0, 0),
                ep,
            )
        )
        flat = add(tg.ReshapeOp.make([conv], result_types=[TensorType(i8, [n, m])]))
        rewriter.replace(root, [*build, _transpose(flat)])


def _layer_op(
    operands: list[SSAValue], result_type: TensorType, stride: int, pads: tuple[int, int, int, int], ep: _Epilogue
) -> vta.Conv2dOp:
    return vta.Conv2dOp.make(operands, result_type, stride, pads, ep.shift, ep.relu, ep.clip)


@dataclass(frozen=True)
class TgToVta(ModulePass):
    name = "tg-to-vta"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        rewrite_once(op, ConvToVta())
