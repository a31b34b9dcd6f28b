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
from dataclasses import dataclass, field

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
from tessel.ir.keys import attrs_key
from tessel.ir.weights import WeightsPass, WeightStore


@dataclass
class FoldConstantOperands(RewritePattern):
    store: WeightStore | None
    interpreter: Interpreter
    # what an op of weights folded to, by _fold_key: the same op of the same weights again
    # (an unrolled RNN transposes and packs its recurrent weights once per time step) is
    # the same weight, not another copy (64 steps made 64 MB of one 1 MB matrix, and
    # every step read its own copy from memory)
    folded: dict[tuple, list[str]] = field(default_factory=dict)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tg.TgOp) or isinstance(op, tg.WeightOp | tg.ConstantOp):
            return
        if not op.operands or not all(tg.is_constant_like(v) or _generated(v) for v in op.operands):
            return
        if self.store is None and any(isinstance(v.owner, tg.WeightOp) for v in op.operands):
            return
        if any(_generated(v) for v in op.operands) and _elements(op) > GENERATED_FOLD_LIMIT:
            return
        key = _fold_key(op)
        folded = self.folded.get(key) if key is not None else None
        if folded is not None:  # the same op of the same weights folded before: its weights
            replacements: list[Operation] = [tg.weight_op(name, tg.tensor_of(r)) for name, r in zip(folded, op.results)]
            for again, result in zip(replacements, op.results):
                again.results[0].name_hint = result.name_hint
            rewriter.replace(op, replacements, [r.results[0] for r in replacements])
            return
        values = self.interpreter.run_op(op, tuple(self._value(v.owner) for v in op.operands))
        replacements = []
        for result, value in zip(op.results, values):
            # C order once, here: a transpose folds to a strided view of its input, which
            # every kernel reading the weight would otherwise copy again
            array = np.asarray(value, order="C")
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
        if key is not None and all(isinstance(r, tg.WeightOp) for r in replacements):
            self.folded[key] = [r.weight_name for r in replacements if isinstance(r, tg.WeightOp)]
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


def _fold_key(op: Operation) -> tuple | None:
    """What an op's folded value is a function of, when its operands are all weights: its
    name, properties, attributes and result types, and the weights by name."""
    if not all(isinstance(v.owner, tg.WeightOp) for v in op.operands):
        return None
    return (
        op.name,
        tuple(v.owner.weight_name for v in op.operands if isinstance(v.owner, tg.WeightOp)),
        attrs_key(op.properties),
        attrs_key(op.attributes),
        tuple(r.type for r in op.results),
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
        for region in op.regions:  # always: the passes before sweep only where they rewrote
            region_dce(region)
