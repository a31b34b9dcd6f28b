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
`img.compute`, that the lowering honours (Halide's inline vs compute_at, Darkroom's line
buffer):

* "inline": every consumer re-evaluates the producer's body at the positions it reads
  (offsets and border maps composed level by level, so exact). Chosen when the consumers
  read it at one position in all (a pure point-wise use: free), or when the redundant work,
  (positions - 1) x body ops, is at most INLINE_BUDGET;
* "line_buffer": computed once per row into a ring of rows (sized by img-line-buffers).

Inline needs map/stencil consumers without zero borders (a zero border reads 0, not the
producer's value at a folded position); results of the function are always stored.

    %h = img.stencil %x {window = array<i64: 1, 3>, ...}   // read by a 3x1 stencil
    -> %h = img.stencil %x {img.compute = "line_buffer", window = array<i64: 1, 3>, ...}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tessel.dialects import img
from tessel.passes.img.rows import COMPUTE_ATTR

INLINE_BUDGET = 8  # redundant body ops per output pixel accepted to avoid a line buffer


def body_ops(op: Operation) -> int:
    """Ops evaluated per pixel (constants are free: LLVM hoists them)."""
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


def _only_user(v: SSAValue) -> Operation | None:
    users = {u.operation for u in v.uses}
    return users.pop() if len(users) == 1 and len(list(v.uses)) == 1 else None


def _copy_attrs(old: Operation, new: Operation) -> None:
    for k, a in old.attributes.items():
        if k != COMPUTE_ATTR:
            new.attributes[k] = a


def _merge_maps(producer: img.MapOp, consumer: img.MapOp) -> img.MapOp:
    inputs: list[SSAValue] = []
    for v in list(consumer.inputs):
        for w in producer.inputs if v is producer.result else [v]:
            if w not in inputs:
                inputs.append(w)
    block = Block(arg_types=[img.types.scalar_type(v.type.element) for v in inputs])  # type: ignore[attr-defined]
    arg_of = dict(zip(inputs, block.args))
    produced = _clone_body_into(producer.body.block, block, [arg_of[w] for w in producer.inputs])
    cargs = [produced if v is producer.result else arg_of[v] for v in consumer.inputs]
    result = _clone_body_into(consumer.body.block, block, cargs)
    block.add_op(img.YieldOp.create(operands=[result]))
    new = img.MapOp.create(operands=inputs, result_types=[consumer.result.type], regions=[Region(block)])
    _copy_attrs(consumer, new)
    return new


def _map_into_stencil(producer: img.MapOp, consumer: img.StencilOp) -> img.StencilOp:
    x = producer.inputs[0]
    kh, kw = consumer.size
    block = Block(arg_types=[img.types.scalar_type(x.type.element)] * (kh * kw))  # type: ignore[attr-defined]
    pixels = [_clone_body_into(producer.body.block, block, [a]) for a in block.args]
    result = _clone_body_into(consumer.body.block, block, pixels)
    block.add_op(img.YieldOp.create(operands=[result]))
    new = img.StencilOp.create(operands=[x], result_types=[consumer.result.type], regions=[Region(block)],
                               properties={"window": consumer.window, "border": consumer.border})  # fmt: skip
    _copy_attrs(consumer, new)
    return new


def _stencil_into_map(producer: img.StencilOp, consumer: img.MapOp) -> img.StencilOp:
    block = Block(arg_types=[a.type for a in producer.body.block.args])
    value = _clone_body_into(producer.body.block, block, list(block.args))
    result = _clone_body_into(consumer.body.block, block, [value])
    block.add_op(img.YieldOp.create(operands=[result]))
    new = img.StencilOp.create(operands=[producer.input], result_types=[consumer.result.type], regions=[Region(block)],
                               properties={"window": producer.window, "border": producer.border})  # fmt: skip
    _copy_attrs(consumer, new)
    return new


def _positions(user: Operation) -> int:
    return user.size[0] * user.size[1] if isinstance(user, img.StencilOp) else 1


@dataclass(frozen=True)
class ImgFuse(ModulePass):
    name = "img-fuse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.walk():
            if isinstance(fn, func.FuncOp):
                while self._rewrite_one(fn):
                    pass
                self._annotate(fn)

    def _rewrite_one(self, fn: func.FuncOp) -> bool:
        for producer in list(fn.body.block.ops):
            if not isinstance(producer, img.MapOp | img.StencilOp):
                continue
            consumer = _only_user(producer.results[0])
            if consumer is None or consumer.parent_block() is not fn.body.block:
                continue
            new: Operation | None = None
            if isinstance(producer, img.MapOp) and isinstance(consumer, img.MapOp):
                new = _merge_maps(producer, consumer)
            elif (isinstance(producer, img.MapOp) and isinstance(consumer, img.StencilOp) and len(producer.inputs) == 1
                  and consumer.border.data in ("clamp", "mirror")
                  and (_positions(consumer) - 1) * body_ops(producer) <= INLINE_BUDGET):  # fmt: skip
                new = _map_into_stencil(producer, consumer)
            elif isinstance(producer, img.StencilOp) and isinstance(consumer, img.MapOp) and len(consumer.inputs) == 1:
                new = _stencil_into_map(producer, consumer)
            if new is None:
                continue
            block = fn.body.block
            block.insert_op_before(new, consumer)
            consumer.results[0].replace_all_uses_with(new.results[0])
            new.results[0].name_hint = consumer.results[0].name_hint
            block.erase_op(consumer)
            block.erase_op(producer)
            return True
        return False

    def _annotate(self, fn: func.FuncOp) -> None:
        ret = fn.body.block.last_op
        results = set(ret.operands) if isinstance(ret, func.ReturnOp) else set()
        for producer in fn.body.block.ops:
            if not isinstance(producer, img.MapOp | img.StencilOp) or producer.results[0] in results:
                continue
            users = [u.operation for u in producer.results[0].uses]
            if not users:
                continue
            readable = all(isinstance(u, img.MapOp) or (isinstance(u, img.StencilOp) and u.border.data != "zero") for u in users)
            positions = sum(_positions(u) for u in users)
            cheap = positions == 1 or (positions - 1) * body_ops(producer) <= INLINE_BUDGET
            producer.attributes[COMPUTE_ATTR] = StringAttr("inline" if readable and cheap else "line_buffer")
