"""tg-fuse: group tg ops into `tg.fused` regions, one per kernel, by TVM's fusion rules.

Each op declares its category (injective, reduction, complex-out-fusable, opaque; see
`tessel.dialects.tg.base`). Groups are grown from their sink (the op whose value leaves
the group) towards producers; a producer joins when every use of its results is inside the
group and the group stays one of these shapes:

- injective ops only (any DAG of them, diamonds included);
- one reduction, with injective producers (its prologue) and element-wise consumers;
- one complex-out-fusable op (conv, matmul, pool) with element-wise consumers only.

An element-wise op that such an anchor feeds is left out of an injective group that
reaches it from below (say a layout transform after conv + relu), so that it becomes the
anchor's epilogue instead of splitting the anchor from it.

Opaque ops, weights and constants are never fused; a value used outside a group ends it;
a group holds at most CONCAT_FAN_IN concat pieces (each is a select at every element), and
a wider concat of contiguous slabs (tg.copied_in_slabs) is a group alone, copied into place.
Every remaining computation is wrapped in its own `tg.fused`, so that the lowering sees
one kind of thing: a group, that becomes one kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from tessel.dialects import tg
from tessel.dialects.tg.base import CONCAT_FAN_IN, Elementwise, FusionCategory, fusion_category

ANCHORS = (FusionCategory.COMPLEX_OUT_FUSABLE, FusionCategory.REDUCTION)


@dataclass
class Group:
    sink: Operation
    ops: set[Operation] = field(default_factory=set)
    anchor: Operation | None = None

    def __post_init__(self) -> None:
        self.ops.add(self.sink)
        if fusion_category(self.sink) in ANCHORS:
            self.anchor = self.sink

    def upstream_of_anchor(self, op: Operation) -> bool:
        """Does `op` feed the anchor (as opposed to feeding only its epilogue)?"""
        if self.anchor is None:
            return False
        seen, work = set(), [self.anchor]
        while work:
            current = work.pop()
            for operand in current.operands:
                producer = operand.owner
                if producer is op:
                    return True
                if isinstance(producer, Operation) and producer in self.ops and producer not in seen:
                    seen.add(producer)
                    work.append(producer)
        return False

    def can_absorb(self, op: Operation) -> bool:
        category = fusion_category(op)
        if category is FusionCategory.OPAQUE:
            return False
        if tg.copied_in_slabs(op):
            return False  # copied into place by tg-to-kernel, as a group of its own
        if isinstance(op, tg.ConcatOp) and self.concat_pieces() + len(op.inputs) > CONCAT_FAN_IN:
            return False  # a select over every piece at every element: tg-split-concat's tree stays a tree
        if category in ANCHORS:
            # the only anchor, below element-wise consumers only
            return self.anchor is None and all(o.has_trait(Elementwise) for o in self.ops)
        if self.anchor is None:
            # an element-wise op that an anchor feeds belongs in that anchor's epilogue
            # rather than in an injective group that the anchor cannot join (a relu
            # between a conv and a layout transform goes with the conv)
            if op.has_trait(Elementwise) and not all(o.has_trait(Elementwise) for o in self.ops):
                return not _epilogue_of_anchor(op)
            return True  # injective into an injective group
        if self.upstream_of_anchor(op):
            return fusion_category(self.anchor) is FusionCategory.REDUCTION
        return op.has_trait(Elementwise)  # feeds only the epilogue

    def concat_pieces(self) -> int:
        return sum(len(o.inputs) for o in self.ops if isinstance(o, tg.ConcatOp))

    def absorb(self, op: Operation) -> None:
        self.ops.add(op)
        if fusion_category(op) in ANCHORS:
            self.anchor = op


def _epilogue_of_anchor(op: Operation) -> bool:
    """Is `op` reached from an anchor through single-use element-wise ops only (so that
    the anchor's group, grown from `op` as its sink, would take it)?"""
    for operand in op.operands:
        producer = operand.owner
        if not isinstance(producer, Operation) or not _fusable(producer) or len(producer.results) != 1:
            continue
        if not producer.results[0].has_one_use():
            continue
        if fusion_category(producer) is FusionCategory.COMPLEX_OUT_FUSABLE:
            return True
        if producer.has_trait(Elementwise) and _epilogue_of_anchor(producer):
            return True
    return False


def _fusable(op: Operation) -> bool:
    return isinstance(op, tg.TgOp) and not isinstance(op, tg.WeightOp | tg.ConstantOp)


def find_groups(block: Block) -> list[Group]:
    """Partition the block's computations into groups, sinks first (reverse order)."""
    assigned: set[Operation] = set()
    groups: list[Group] = []
    for op in reversed(list(block.ops)):
        if op in assigned or not _fusable(op):
            continue
        group = Group(op)
        if len(op.results) == 1 and fusion_category(op) is not FusionCategory.OPAQUE and not tg.copied_in_slabs(op):
            _grow(group, assigned)
        assigned |= group.ops
        groups.append(group)
    return groups


def _grow(group: Group, assigned: set[Operation]) -> None:
    frontier = [group.sink]
    while frontier:
        op = frontier.pop()
        for operand in op.operands:
            producer = operand.owner
            if not isinstance(producer, Operation) or producer in group.ops or producer in assigned:
                continue
            if not _fusable(producer) or len(producer.results) != 1:
                continue
            if not all(use.operation in group.ops for use in producer.results[0].uses):
                continue
            if group.can_absorb(producer):
                group.absorb(producer)
                frontier.append(producer)


def build_fused(group: Group, order: dict[Operation, int]) -> tuple[tg.FusedOp, list[Operation]]:
    """A tg.fused holding clones of the group's ops (in block order, `order` being each op's
    position, taken once: a scan of the block per group was quadratic, 200 s of tg-fuse on
    an unrolled GRU's 2,475 groups), and those ops."""
    ordered = sorted(group.ops, key=order.__getitem__)
    inputs: list[SSAValue] = []
    for op in ordered:
        for operand in op.operands:
            if not (isinstance(operand.owner, Operation) and operand.owner in group.ops) and operand not in inputs:
                inputs.append(operand)
    body = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args))
    for value, arg in mapping.items():
        arg.name_hint = value.name_hint
    for op in ordered:
        body.add_op(op.clone(value_mapper=mapping))
    sink = group.sink
    body.add_op(tg.YieldOp.create(operands=[mapping[r] for r in sink.results]))
    kind = "_".join(op.name.removeprefix("tg.") for op in ordered)
    fused = tg.FusedOp.create(
        operands=inputs,
        result_types=[r.type for r in sink.results],
        properties={"kind": builtin.StringAttr(kind)},
        regions=[Region(body)],
    )
    fused.location = sink.location
    return fused, ordered


@dataclass
class WrapGroup(RewritePattern):
    """At each group's sink, replace the group by one tg.fused."""

    groups: dict[Operation, Group]
    order: dict[Operation, int]  # each op's position in its block before the rewrite

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        group = self.groups.get(op)
        if group is None or op.parent is None:
            return
        fused, ordered = build_fused(group, self.order)
        new_results = list(fused.results)
        for old, new in zip(op.results, new_results):
            new.name_hint = old.name_hint
        rewriter.replace(op, fused, new_results)
        for member in reversed(ordered[:-1]):
            rewriter.erase(member)


@dataclass(frozen=True)
class TgFuse(ModulePass):
    name = "tg-fuse"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        groups: dict[Operation, Group] = {}
        order: dict[Operation, int] = {}
        for fn in op.walk():
            if isinstance(fn, func.FuncOp) and fn.body.blocks:
                groups.update((g.sink, g) for g in find_groups(fn.body.block))
                order.update((o, i) for i, o in enumerate(fn.body.block.ops))
        PatternRewriteWalker(WrapGroup(groups, order), apply_recursively=False).rewrite_module(op)
