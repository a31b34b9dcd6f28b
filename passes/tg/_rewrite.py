"""What the tg rewrite passes share: inserting tg ops before the op being rewritten, and
applying one pattern over a module in a single sweep."""

from __future__ import annotations

from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.transforms.dead_code_elimination import region_dce

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

    def slice(self, v: SSAValue, starts: list[int], shape: list[int], steps: list[int] | None = None) -> SSAValue:
        """v[starts :: steps] with the result `shape` (steps: 1 on every axis by default)."""
        props = {"starts": ints_attr(starts), "steps": ints_attr(steps or [1] * len(starts))}
        return self.make(tg.SliceOp, [v], props, shape=shape)

    def reshape(self, v: SSAValue, shape: list[int]) -> SSAValue:
        return self.make(tg.ReshapeOp, [v], shape=shape)

    def pad(self, v: SSAValue, pads: list[int]) -> SSAValue:
        if not any(pads):
            return v
        return self.make(tg.PadOp, [v], {"pads": ints_attr(pads), "mode": builtin.StringAttr("constant")})


def rewrite_once(module: builtin.ModuleOp, pattern: RewritePattern) -> None:
    """Apply `pattern` to every op once (not to the ops it creates), then drop what became dead."""
    PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(module)
    for region in module.regions:
        region_dce(region)
