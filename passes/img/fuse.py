"""img-fuse: merge point-wise producers into their consumers, and choose, for every other
producer, whether its consumers recompute it (inline) or read it from a line buffer.

Rewrites (each exact, including at the borders, so the reference gives the same image):

* map(..., map(xs), ...)  -> one map over the inputs of both (the producer's body inlined);
* stencil(map(x))         -> a stencil over x that applies the map to every window pixel,
                             when the stencil's border is clamp or mirror (they only move
                             indices, so map(x)[fold(p)] = map(x[fold(p)])) and the extra
                             evaluations are cheap (see INLINE_BUDGET);
* map(stencil(x))         -> a stencil whose body ends with the map's.

A producer used once and by nothing else is rewritten; one with several users is left alone
(rewriting would duplicate it). Stencil-of-stencil is never merged into one larger
window: clamp(clamp(y+a)+b) is not clamp(y+a+b) at the border, so the merged window would
change the edge pixels. Instead the remaining producers get a schedule attribute,
`img.compute = #img<compute inline | line_buffer>`, that the lowering honours (Halide's inline vs compute_at, Darkroom's line
buffer):

* inline: every consumer re-evaluates the producer's body at the positions it reads
  (offsets and border maps composed level by level, so exact). Chosen when the consumers
  read it at one position in all (a pure point-wise use: free), or when the redundant work,
  (positions - 1) x body ops, is at most INLINE_BUDGET;
* line_buffer: computed once per row into a ring of rows (sized by img-line-buffers).

Inline needs map/stencil consumers without zero borders (a zero border reads 0, not the
producer's value at a folded position); results of the function are always stored.

A lookup table (img.lut) is point-wise too: its consumers read it inline (one table read
per position) under the same rule.

Each rewrite is a RewritePattern on the consumer, applied to a fixpoint by a
PatternRewriteWalker; the schedule choice is a second walk over the fused function.

    %h = img.stencil %x window [1, 3] border clamp ...   // read by a 3x1 stencil
    -> %h = img.stencil %x window [1, 3] border clamp {img.compute = #img<compute line_buffer>} ...
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tessel.dialects import img
from tessel.dialects.img.attrs import Border, Compute, ComputeAttr
from tessel.dialects.img.plan import COMPUTE_ATTR
from tessel.dialects.img.types import ImageType, scalar_type

INLINE_BUDGET = 8  # redundant body ops per output pixel accepted to avoid a line buffer


LUT_OPS = 4  # a table read is a gather: about four arithmetic ops' worth per pixel


def body_ops(op: Operation) -> int:
    """Ops evaluated per pixel (constants are free: LLVM hoists them)."""
    if isinstance(op, img.LutOp):
        return LUT_OPS
    return sum(1 for o in op.regions[0].block.ops if not isinstance(o, img.YieldOp | arith.ConstantOp))


def _clone_body_into(src: Block, dst: Block, args: list[SSAValue]) -> SSAValue:
    """Copy src's ops (not its yield) to the end of dst with its arguments bound to args;
    the value it yields."""
    mapping: dict[SSAValue, SSAValue] = dict(zip(src.args, args))
    for op in src.ops:
        if isinstance(op, img.YieldOp):
            return mapping.get(op.values[0], op.values[0])
        new = op.clone(value_mapper=mapping)
        dst.add_op(new)
        for old, fresh in zip(op.results, new.results):
            mapping[old] = fresh
    raise AssertionError("body without img.yield")


def _single_use_by(v: SSAValue, consumer: Operation) -> bool:
    uses = list(v.uses)
    owner = v.owner
    return (len(uses) == 1 and uses[0].operation is consumer and isinstance(owner, Operation)
            and consumer.parent_block() is owner.parent_block())  # fmt: skip


def _scalar(v: SSAValue) -> ImageType:
    t = v.type
    assert isinstance(t, ImageType)
    return t


def _replace(rewriter: PatternRewriter, producer: Operation, consumer: Operation, new: Operation) -> None:
    """new stands where consumer stood, with consumer's name and attributes (not its schedule)."""
    for k, a in consumer.attributes.items():
        if k != COMPUTE_ATTR:
            new.attributes[k] = a
    name = consumer.results[0].name_hint
    rewriter.replace(consumer, [new])
    new.results[0].name_hint = name
    rewriter.erase(producer)


class MergeMapIntoMap(RewritePattern):
    """map(..., map(xs), ...) -> one map over the inputs of both, the producer's body first."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, consumer: img.MapOp, rewriter: PatternRewriter, /) -> None:
        producer = next(
            (v.owner for v in consumer.inputs if isinstance(v.owner, img.MapOp) and _single_use_by(v, consumer)), None
        )
        if not isinstance(producer, img.MapOp):
            return
        inputs: list[SSAValue] = []
        for v in consumer.inputs:
            for w in producer.inputs if v is producer.result else [v]:
                if w not in inputs:
                    inputs.append(w)
        block = Block(arg_types=[scalar_type(_scalar(v).element) for v in inputs])
        arg_of = dict(zip(inputs, block.args))
        produced = _clone_body_into(producer.body.block, block, [arg_of[w] for w in producer.inputs])
        cargs = [produced if v is producer.result else arg_of[v] for v in consumer.inputs]
        block.add_op(img.YieldOp.create(operands=[_clone_body_into(consumer.body.block, block, cargs)]))
        new = img.MapOp.create(operands=inputs, result_types=[consumer.result.type], regions=[Region(block)])
        _replace(rewriter, producer, consumer, new)


class MergeMapIntoStencil(RewritePattern):
    """stencil(map(x)) -> a stencil over x that applies the map to every window pixel, when
    the border only moves indices (clamp, mirror) and the extra work is within budget."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, consumer: img.StencilOp, rewriter: PatternRewriter, /) -> None:
        producer = consumer.input.owner
        if (
            not isinstance(producer, img.MapOp)
            or len(producer.inputs) != 1
            or not _single_use_by(consumer.input, consumer)
        ):
            return
        kh, kw = consumer.size
        if consumer.border_mode == Border.ZERO or (kh * kw - 1) * body_ops(producer) > INLINE_BUDGET:
            return
        x = producer.inputs[0]
        block = Block(arg_types=[scalar_type(_scalar(x).element)] * (kh * kw))
        pixels = [_clone_body_into(producer.body.block, block, [a]) for a in block.args]
        block.add_op(img.YieldOp.create(operands=[_clone_body_into(consumer.body.block, block, pixels)]))
        new = img.StencilOp.create(operands=[x], result_types=[consumer.result.type], regions=[Region(block)],
                                   properties={"window": consumer.window, "border": consumer.border})  # fmt: skip
        _replace(rewriter, producer, consumer, new)


class MergeStencilIntoMap(RewritePattern):
    """map(stencil(x)) -> a stencil whose body ends with the map's."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, consumer: img.MapOp, rewriter: PatternRewriter, /) -> None:
        if len(consumer.inputs) != 1:
            return
        producer = consumer.inputs[0].owner
        if not isinstance(producer, img.StencilOp) or not _single_use_by(consumer.inputs[0], consumer):
            return
        block = Block(arg_types=[a.type for a in producer.body.block.args])
        value = _clone_body_into(producer.body.block, block, list(block.args))
        block.add_op(img.YieldOp.create(operands=[_clone_body_into(consumer.body.block, block, [value])]))
        new = img.StencilOp.create(operands=[producer.input], result_types=[consumer.result.type], regions=[Region(block)],
                                   properties={"window": producer.window, "border": producer.border})  # fmt: skip
        _replace(rewriter, producer, consumer, new)


def _positions(user: Operation) -> int:
    if isinstance(user, img.StencilOp):
        kh, kw = user.size
        return kh * kw
    return 1


def choose_schedule(producer: Operation) -> Compute | None:
    """inline or line_buffer for a map/stencil/lut with consumers (None: a result, or unused)."""
    fn_block = producer.parent_block()
    ret = fn_block.last_op if fn_block is not None else None
    if isinstance(ret, func.ReturnOp) and producer.results[0] in ret.operands:
        return None
    users = [u.operation for u in producer.results[0].uses]
    if not users:
        return None
    readable = all(
        isinstance(u, img.MapOp | img.LutOp) or (isinstance(u, img.StencilOp) and u.border_mode != Border.ZERO)
        for u in users
    )
    positions = sum(_positions(u) for u in users)
    cheap = positions == 1 or (positions - 1) * body_ops(producer) <= INLINE_BUDGET
    return Compute.INLINE if readable and cheap else Compute.LINE_BUFFER


class ChooseSchedule(RewritePattern):
    """Write img.compute on every map, stencil and lut that a consumer reads."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, img.MapOp | img.StencilOp | img.LutOp) or not isinstance(op.parent_op(), func.FuncOp):
            return
        choice = choose_schedule(op)
        if choice is None or op.attributes.get(COMPUTE_ATTR) == ComputeAttr(choice):
            return
        op.attributes[COMPUTE_ATTR] = ComputeAttr(choice)
        rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class ImgFuse(ModulePass):
    name = "img-fuse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # no dead-code elimination: the bodies stay as written (the cost model counts their ops)
        merges = GreedyRewritePatternApplier(
            [MergeMapIntoMap(), MergeMapIntoStencil(), MergeStencilIntoMap()], dce_enabled=False
        )
        PatternRewriteWalker(merges).rewrite_module(op)
        PatternRewriteWalker(ChooseSchedule(), apply_recursively=False).rewrite_module(op)
