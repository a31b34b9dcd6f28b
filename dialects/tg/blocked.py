"""Blocked layouts: NCHW[x]c activations and OIHW[i]i[o]o weights (TVM's conv2d_NCHWc),
and packed dense weights (TVM's dense_pack).

Splitting the channel dim into blocks of a vector's width puts the channels of one pixel
next to each other, so a convolution can hold a vector of output channels per register and
broadcast input values, whatever its stride. `tg-layout` introduces these ops and the
conversions around them, and cancels conversions that meet.

    %xb = tg.layout_transform %x {src = "NCHW", dst = "NCHW16c"} : tensor<1x64x56x56xf32> -> tensor<1x4x56x56x16xf32>
    %y = tg.conv2d_nchwc %xb, %wb, %b {...} : (tensor<1x4x56x56x16xf32>, tensor<4x4x3x3x16x16xf32>, tensor<64xf32>) -> tensor<1x4x56x56x16xf32>

A matmul by a constant [K, N] matrix reads a row of N per step of K; with N large those
rows are kilobytes apart and evict each other from L1. Packed as [N/16, K, 16], the 16
columns one vector register accumulates are contiguous along K:

    %y = tg.dense_packed %a, %wp {columns = 1000 : i64} : (tensor<1x512xf32>, tensor<63x512x16xf32>) -> tensor<1x1000xf32>
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType, f32, i32
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .base import COMPLEX_OUT_FUSABLE, INJECTIVE, Props, TgOp, integer, require, require_rank, same_element_type
from .nn import FUNCTIONAL, _check_window_props, conv_output_size

ACTIVATION = re.compile(r"^NCHW(\d+)c$")
WEIGHT = re.compile(r"^OIHW(\d+)i(\d+)o$")


def blocked_shape(shape: Sequence[int], src: str, dst: str) -> tuple[int, ...]:
    """The shape of a tensor in layout `dst`, given its shape in `src`; ValueError if the
    conversion is not one tg knows or the blocks do not divide."""
    if src == "NCHW" and (m := ACTIVATION.match(dst)):
        c = int(m.group(1))
        n, ch, h, w = shape
        if c < 1 or ch % c:
            raise ValueError(f"{ch} channels do not split into blocks of {c}")
        return (n, ch // c, h, w, c)
    if dst == "NCHW" and (m := ACTIVATION.match(src)):
        n, cb, h, w, c = shape
        if c != int(m.group(1)):
            raise ValueError(f"the block dim is {c}, {src} says {m.group(1)}")
        return (n, cb * c, h, w)
    if src == "OIHW" and (m := WEIGHT.match(dst)):
        bi, bo = int(m.group(1)), int(m.group(2))
        o, i, kh, kw = shape
        if bi < 1 or bo < 1 or i % bi or o % bo:
            raise ValueError(f"weights {o}x{i} do not split into {bo} x {bi} blocks")
        return (o // bo, i // bi, kh, kw, bi, bo)
    raise ValueError(f"no conversion from {src} to {dst}")


def activation_block(layout: str) -> int | None:
    """k for "NCHW{k}c", None for "NCHW"; ValueError for anything else."""
    if layout == "NCHW":
        return None
    if m := ACTIVATION.match(layout):
        if int(m.group(1)) >= 1:
            return int(m.group(1))
    raise ValueError(f'layout must be "NCHW" or "NCHW<k>c", got "{layout}"')


@irdl_op_definition
class LayoutTransformOp(TgOp):
    name = "tg.layout_transform"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    src = prop_def(StringAttr)
    dst = prop_def(StringAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        src_attr, dst_attr = (props.get(k) for k in ("src", "dst"))
        if not isinstance(src_attr, StringAttr) or not isinstance(dst_attr, StringAttr):
            raise VerifyException('src and dst must be layout names such as "NCHW" and "NCHW16c"')
        src, dst = src_attr.data, dst_attr.data
        try:
            shape = blocked_shape(x.get_shape(), src, dst)
        except ValueError as err:
            raise VerifyException(str(err)) from None
        return [TensorType(x.element_type, shape)]


class BlockedConvOp(TgOp):
    """What the blocked convolutions share: NCHW[cb]c input and output, a 6-D blocked
    weight, an optional bias over the logical output channels, a 2-D window."""

    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(DenseArrayBase)
    pads = prop_def(DenseArrayBase)
    dilations = prop_def(DenseArrayBase)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = FUNCTIONAL

    @classmethod
    def check_blocked(
        cls, operand_types: Sequence[TensorType], props: Props, out_channels: int
    ) -> tuple[Attribute, list[int]]:
        """Element type and output spatial size, after the checks both ops make."""
        x, w = operand_types[:2]
        et = same_element_type(list(operand_types))
        require_rank(x, 5, "input")
        require_rank(w, 6, "weight")
        strides, pads, dilations = _check_window_props(props, 2, cls.name.removeprefix("tg."))
        _, _, h, wd, _ = x.get_shape()
        _, _, kh, kw, _, _ = w.get_shape()
        if len(operand_types) == 3:
            require(
                operand_types[2].get_shape() == (out_channels,),
                lambda: f"bias must have shape ({out_channels},), got {operand_types[2]}",
            )
        out = [
            conv_output_size(size, k, s, pads[i], pads[i + 2], d)
            for i, (size, k, s, d) in enumerate(zip((h, wd), (kh, kw), strides, dilations))
        ]
        require(all(o >= 1 for o in out), lambda: f"the {kh}x{kw} window does not fit the padded {h}x{wd} input")
        return et, out


@irdl_op_definition
class Conv2dNchwcOp(BlockedConvOp):
    """conv2d on NCHW[cb]c input with OIHW[cb]i[mb]o weights, NCHW[mb]c output. With `groups`
    g (absent: 1) every group has whole blocks: output block mo reads the co input blocks of
    its group, g(mo) = mo floordiv (MO / g).

    y[n, mo, oh, ow, mi] = bias[mo*mb + mi] + sum over (co, kh, kw, ci) of
        x[n, g(mo)*CO + co, oh*s - pad + kh*d, ow*s - pad + kw*d, ci] * w[mo, co, kh, kw, ci, mi]
    """

    name = "tg.conv2d_nchwc"
    groups = opt_prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, w = operand_types[:2]
        require_rank(w, 6, "weight")
        mo, wcb_count, _, _, wcb, mb = w.get_shape()
        et, out = cls.check_blocked(operand_types, props, mo * mb)
        n, cb_count, _, _, cb = x.get_shape()
        g = integer(props, "groups") if "groups" in props else 1
        require(g >= 1 and mo % g == 0, lambda: f"groups={g} must divide the {mo} output blocks")
        per = "" if g == 1 else f" ({g} groups of them)"
        require(
            wcb_count * g == cb_count and wcb == cb,
            lambda: f"weight blocks {wcb_count}x{wcb}{per} differ from the input's {cb_count}x{cb}",
        )
        return [TensorType(et, [n, mo, *out, mb])]


@irdl_op_definition
class DepthwiseConv2dNchwcOp(BlockedConvOp):
    """Depthwise conv2d (groups = channels, one filter each) on NCHW[cb]c input, weights
    OIHW1i[cb]o ([C/cb, 1, kH, kW, 1, cb]), NCHW[cb]c output: each lane its own channel.

    y[n, b, oh, ow, i] = bias[b*cb + i] + sum over (kh, kw) of
        x[n, b, oh*s - pad + kh*d, ow*s - pad + kw*d, i] * w[b, 0, kh, kw, 0, i]
    """

    name = "tg.depthwise_conv2d_nchwc"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, w = operand_types[:2]
        require_rank(x, 5, "input")
        require_rank(w, 6, "weight")
        n, blocks, _, _, cb = x.get_shape()
        wb, one_i, _, _, one_o, wcb = w.get_shape()
        require(one_i == 1 and one_o == 1, lambda: f"a depthwise weight has one input channel per block, got {w}")
        require(wb == blocks and wcb == cb, lambda: f"weight blocks {wb}x{wcb} differ from the input's {blocks}x{cb}")
        et, out = cls.check_blocked(operand_types, props, blocks * cb)
        return [TensorType(et, [n, blocks, *out, cb])]


@irdl_op_definition
class DensePackedOp(TgOp):
    """a [..., M, K] times a matrix B [K, N] held packed as w [ceil(N/nb), K, nb], with
    w[j, k, i] = B[k, j*nb + i] (zero past N):

    y[..., m, n] = sum over k of a[..., m, k] * w[n floordiv nb, k, n mod nb],  n < columns
    """

    name = "tg.dense_packed"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    columns = prop_def(IntegerAttr)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = FUNCTIONAL

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        a, w = operand_types
        et = same_element_type([a, w])
        require_rank(w, 3, "packed weight")
        require(a.get_num_dims() >= 2, lambda: f"the input must have rank >= 2, got {a}")
        blocks, k, nb = w.get_shape()
        n = integer(props, "columns")
        require(
            a.get_shape()[-1] == k, lambda: f"contraction sizes differ: input has {a.get_shape()[-1]}, weight has {k}"
        )
        require(
            nb >= 1 and (blocks - 1) * nb < n <= blocks * nb, lambda: f"{n} columns do not fill {blocks} blocks of {nb}"
        )
        return [TensorType(et, [*a.get_shape()[:-1], n])]


@irdl_op_definition
class DensePackedBf16Op(TgOp):
    """dense_packed in bfloat16 (`--precision bf16`): a [..., M, K] in float32, rounded to
    bfloat16 (to nearest even) at run time, times B [K, N] held as bfloat16 pairs w
    [ceil(N/16), ceil(K/2), 16] of i32, with w[j, p, i] = B[2p + 1, 16j + i] << 16 |
    B[2p, 16j + i] (each half a bfloat16; zero past K and N), accumulated in float32:

        y[..., m, n] = sum over k of bf16(a[..., m, k]) * B[k, n],  n < columns

    Half the weight bytes of dense_packed, and two multiply-adds per lane and instruction
    where the CPU has vdpbf16ps (kernel.bf16dot2). The sums are float32, as the
    instruction's: only the operands are rounded.
    """

    name = "tg.dense_packed_bf16"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    columns = prop_def(IntegerAttr)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = FUNCTIONAL

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        a, w = operand_types
        require(a.element_type == f32, lambda: f"the input must be f32, got {a.element_type}")
        require(w.element_type == i32, lambda: f"the packed weight holds bfloat16 pairs as i32, got {w.element_type}")
        require_rank(w, 3, "packed weight")
        require(a.get_num_dims() >= 2, lambda: f"the input must have rank >= 2, got {a}")
        blocks, pairs, nb = w.get_shape()
        k, n = a.get_shape()[-1], integer(props, "columns")
        require(pairs == -(-k // 2), lambda: f"contraction sizes differ: input has {k}, weight {pairs} pairs")
        require(
            nb == 16 and (blocks - 1) * nb < n <= blocks * nb, lambda: f"{n} columns do not fill {blocks} blocks of 16"
        )
        return [TensorType(f32, [*a.get_shape()[:-1], n])]


@irdl_op_definition
class Conv2dNchwcBf16Op(BlockedConvOp):
    """conv2d_nchwc in bfloat16 (`--precision bf16`): the float32 NCHW[cb]c input rounded to
    bfloat16 (to nearest even) at run time, the weights held as bfloat16 pairs of input
    channels, w [MO, CO, kH, kW, cb/2, mb] of i32 (word = w[.., 2p + 1, ..] << 16 |
    w[.., 2p, ..]), sums and bias in float32; groups = 1:

        y[n, mo, oh, ow, mi] = bias[mo*mb + mi] + sum over (co, kh, kw, ci) of
            bf16(x[n, co, oh*s - pad + kh*d, ow*s - pad + kw*d, ci]) * W[mo, co, kh, kw, ci, mi]
    """

    name = "tg.conv2d_nchwc_bf16"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, w = operand_types[:2]
        require(x.element_type == f32, lambda: f"the input must be f32, got {x.element_type}")
        require(w.element_type == i32, lambda: f"the weight holds bfloat16 pairs as i32, got {w.element_type}")
        require_rank(x, 5, "input")
        require_rank(w, 6, "weight")
        mo, co, _, _, pairs, mb = w.get_shape()
        n, cb_count, _, _, cb = x.get_shape()
        require(
            co == cb_count and 2 * pairs == cb,
            lambda: f"weight blocks {co}x{pairs} pairs differ from the input's {cb_count}x{cb} channels",
        )
        if len(operand_types) == 3:
            require(
                operand_types[2].element_type == f32,
                lambda: f"the bias must be f32, got {operand_types[2].element_type}",
            )
        blocked = [x, TensorType(f32, w.get_shape()), *operand_types[2:]]
        _, out = cls.check_blocked(blocked, props, mo * mb)
        return [TensorType(f32, [n, mo, *out, mb])]
