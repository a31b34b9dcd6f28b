"""What the tg rewrite passes share: inserting tg ops before the op being rewritten."""

from __future__ import annotations

from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from tessel.dialects import tg
from tessel.dialects.tg.base import ints_attr


class Inserter:
    """Inserts tg ops before the matched op, inferring result types where tg can."""

    def __init__(self, rewriter: PatternRewriter):
        self.rewriter = rewriter

    def make(
        self,
        op_type: type[tg.TgOp],
        operands: list[SSAValue],
        props: dict | None = None,
        shape: list[int] | None = None,
    ) -> SSAValue:
        types = None
        if shape is not None:
            types = [TensorType(tg.tensor_of(operands[0]).element_type, shape)]
        op = op_type.make(operands, props, types)
        self.rewriter.insert(op)
        return op.results[0]

    def reshape(self, v: SSAValue, shape: list[int]) -> SSAValue:
        return self.make(tg.ReshapeOp, [v], shape=shape)

    def pad(self, v: SSAValue, pads: list[int]) -> SSAValue:
        if not any(pads):
            return v
        return self.make(tg.PadOp, [v], {"pads": ints_attr(pads), "mode": builtin.StringAttr("constant")})
