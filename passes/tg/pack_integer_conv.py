"""tg-pack-integer-conv: int8 convolutions onto the CPU's byte dot products.

`tg.conv2d_integer` lowers to a loop that widens every byte to i32 and multiplies lane by
lane: one multiply-add per lane and instruction (ResNet-18 int8 ran at a fifth of
onnxruntime's speed). x86's vpdpbusd (AVX-512 VNNI, AVX-VNNI) multiplies four unsigned
bytes by four signed bytes and adds the four products into each i32 lane. To feed it, a
convolution with compile-time int8 weights (zero point 0, as quantizers write weights)
and one group becomes `tg.conv2d_integer_packed` (dialects/tg/quant.py): the weights packed
four input channels per i32, 16 output channels innermost (one vector of i32 lanes), and
the input's zero-point correction folded into a per-channel offset

    conv2d_integer(x, w, x_zp, 0)  =  conv2d_integer_packed(x, pack(w), x_zp, -u(x_zp) * sum(w))

where u reads a byte unsigned (int8 + 128: the shift cancels between the two terms). The
kernel then runs one kernel.dot4 per four input channels, 16 output channels at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType, i32
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tessel.dialects import tg
from tessel.dialects.tg.base import integer
from tessel.dialects.tg.quant import as_unsigned_bytes, int_kind, pack_conv_weights
from tessel.ir.weights import WeightsPass, WeightStore

from ._rewrite import Values, rewrite_once

BLOCK = 16  # output channels per packed block: 16 i32 lanes fill a 512-bit vector
MIN_OUTPUTS = 8  # fewer output channels leave most lanes of a block idle: kept as it is


@dataclass
class PackConv(RewritePattern):
    values: Values
    store: WeightStore | None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv2dIntegerOp, rewriter: PatternRewriter, /) -> None:
        if integer(op.properties, "groups") != 1 or int_kind(tg.tensor_of(op.weight).element_type) != (8, True):
            return
        m = tg.tensor_of(op.weight).get_shape()[0]
        if m < MIN_OUTPUTS:
            return
        w, wz, xz = (self.values.of(v) for v in (op.weight, op.weight_zero_point, op.input_zero_point))
        if w is None or wz is None or xz is None or np.any(wz):
            return
        packed = pack_conv_weights(w, BLOCK)
        offset = (-as_unsigned_bytes(xz.reshape(())) * w.astype(np.int64).sum(axis=(1, 2, 3))).astype(np.int32)
        name = op.weight.name_hint or "conv_weight"
        new = [self._constant(f"{name}_packed", packed), self._constant(f"{name}_offset", offset)]
        props = {k: op.properties[k] for k in ("strides", "pads", "dilations")}
        conv = tg.Conv2dIntegerPackedOp.make(
            [op.input, new[0].results[0], op.input_zero_point, new[1].results[0]], props
        )
        conv.results[0].name_hint = op.result.name_hint
        rewriter.replace(op, [*new, conv], [conv.results[0]])

    def _constant(self, name: str, array: np.ndarray) -> Operation:
        if array.size <= tg.INLINE_LIMIT or self.store is None:
            op: Operation = tg.constant_op(array)
        else:
            op = tg.weight_op(self.store.add(name, array), TensorType(i32, list(array.shape)))
        op.results[0].name_hint = name
        return op


@dataclass(frozen=True)
class TgPackIntegerConv(WeightsPass):
    name = "tg-pack-integer-conv"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        rewrite_once(op, PackConv(Values(self.store), self.store))
