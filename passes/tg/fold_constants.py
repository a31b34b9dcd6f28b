"""tg-fold-constants: evaluate ops whose operands are all compile-time constants.

The value is computed with the reference semantics (the same numpy kernels that define
the ops), so folding cannot change a result. Small results become inline `tg.constant`s;
large ones become new `tg.weight`s in the pass's weight store (an explicit object the
pipeline or tessel-opt gives it: the module's `tg.weights` file). Operands that are
`tg.weight`s can only be read when the pass has a store: without one, such ops are left
alone. Ops that lost their last use are erased.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import Interpreter
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.transforms.dead_code_elimination import region_dce

from tessel.dialects import tg
from tessel.dialects.tg.interpret import TgFunctions
from tessel.ir.weights import WeightsPass, WeightStore


@dataclass
class FoldConstantOperands(RewritePattern):
    store: WeightStore | None
    interpreter: Interpreter

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tg.TgOp) or isinstance(op, tg.WeightOp | tg.ConstantOp):
            return
        if not op.operands or not all(tg.is_constant_like(v) or _generated(v) for v in op.operands):
            return
        if self.store is None and any(isinstance(v.owner, tg.WeightOp) for v in op.operands):
            return
        if any(_generated(v) for v in op.operands) and _elements(op) > GENERATED_FOLD_LIMIT:
            return
        values = self.interpreter.run_op(op, tuple(self._value(v.owner) for v in op.operands))
        replacements = []
        for result, value in zip(op.results, values):
            array = np.asarray(value)
            new: Operation
            if array.size <= tg.INLINE_LIMIT:
                new = tg.constant_op(array)
            elif self.store is not None:
                assert isinstance(result.type, TensorType)  # a tg op's results are tensors
                new = tg.weight_op(self.store.add(result.name_hint or "folded", array), result.type)
            else:
                return  # nowhere to put a large result
            new.results[0].name_hint = result.name_hint
            replacements.append(new)
        rewriter.replace(op, replacements, [r.results[0] for r in replacements])

    def _value(self, op: Operation | Block) -> np.ndarray:
        if isinstance(op, tg.ConstantOp):
            return tg.constant_value(op)
        if isinstance(op, tg.TgOp) and not isinstance(op, tg.WeightOp):  # _generated
            return np.asarray(self.interpreter.run_op(op, ())[0])
        assert isinstance(op, tg.WeightOp) and self.store is not None
        return np.asarray(self.store[op.weight_name])


# A value an operand-less op generates (tg.fill, ONNX's ConstantOfShape) is folded only into
# a consumer whose inputs are all compile-time and whose result is at most this many
# elements: swin's attention mask (a fill, nine scatter_nd and a compare, 56x56) is then
# computed once, here, instead of by ten kernels on every run; a large result stays
# computed (a fill costs nothing in a kernel, a folded weight a read per run).
GENERATED_FOLD_LIMIT = 1 << 16


def _generated(v: SSAValue) -> bool:
    owner = v.owner
    return (
        isinstance(owner, tg.TgOp)
        and not isinstance(owner, tg.WeightOp | tg.ConstantOp)
        and not owner.operands
        and not owner.regions
        and len(owner.results) == 1
    )


def _elements(op: Operation) -> int:
    return sum(math.prod(r.type.get_shape()) for r in op.results if isinstance(r.type, TensorType))


@dataclass(frozen=True)
class TgFoldConstants(WeightsPass):
    name = "tg-fold-constants"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        store = self.store
        interpreter = Interpreter(builtin.ModuleOp([]))
        interpreter.register_implementations(TgFunctions(store if store is not None else {}))
        PatternRewriteWalker(FoldConstantOperands(store, interpreter)).rewrite_module(op)
        for region in op.regions:
            region_dce(region)
