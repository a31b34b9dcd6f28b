"""What the tg rewrite passes share: inserting tg ops before the op being rewritten,
applying one pattern over a module in a single sweep, and the compile-time values of
weights and of the ops computed from them."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import Interpreter
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.transforms.dead_code_elimination import region_dce

from tessel.dialects import tg
from tessel.dialects.tg.base import ints_attr
from tessel.dialects.tg.interpret import TgFunctions
from tessel.ir.weights import WeightStore


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
    """Apply `pattern` to every op once (not to the ops it creates), then drop what became
    dead (if it changed anything: the sweep costs a quarter second on an unrolled RNN)."""
    if PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(module):
        for region in module.regions:
            region_dce(region)


class Values:
    """Compile-time values of tg SSA values (constants, weights and ops over them)."""

    def __init__(self, store: WeightStore | None):
        self.store = store
        self.interpreter = Interpreter(builtin.ModuleOp([]))
        self.interpreter.register_implementations(TgFunctions(store if store is not None else {}))
        self.cache: dict[SSAValue, np.ndarray | None] = {}

    def of(self, v: SSAValue) -> np.ndarray | None:
        if v not in self.cache:
            self.cache[v] = self._evaluate(v)
        return self.cache[v]

    def _evaluate(self, v: SSAValue) -> np.ndarray | None:
        op = v.owner
        if isinstance(op, tg.ConstantOp):
            return tg.constant_value(op)
        if isinstance(op, tg.WeightOp):
            return np.asarray(self.store[op.weight_name]) if self.store is not None else None
        if not isinstance(op, tg.TgOp) or op.regions or not op.operands or not tg.is_compile_time(v):
            return None
        args = [self.of(o) for o in op.operands]
        if any(a is None for a in args):
            return None
        results = self.interpreter.run_op(op, tuple(args))
        return np.asarray(results[next(i for i, r in enumerate(op.results) if r is v)])
