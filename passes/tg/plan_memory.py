"""tg-plan-memory: place every intermediate tensor at a static offset in one arena.

TVM's static memory planning (OSDI'18, section 3): buffers whose lifetimes do not overlap
share memory. Lifetimes are op positions in the function body (from the producer to the
last use); a value produced by a pure reshape (a `tg.reshape`/`tg.flatten` or a
`tg.fused` made only of them) is the same buffer as its input, so it extends that
buffer's life instead of getting its own. Placement is greedy by size: largest first, each
at the lowest 64-byte-aligned offset free over its whole lifetime (TFLite's arena planner),
which is within a few percent of optimal on CNNs.

A concat of contiguous slabs (a group tg-to-kernel copies into place: `slab_pieces`) is
built in place where it can be (`_concat_in_place`): its pieces' buffers go inside its
own, each at its slab, and an earlier concat whose pieces are the front of its own is a
view of that front; the buffer lives from the first piece's producer on. The pieces'
kernels then write their slabs, and tg-to-kernel copies only what could not be placed.
SqueezeNet 1.1, GoogLeNet, Inception-v3 and DenseNet-121 copied 16, 36, 46 and 461
pieces into their concats before; none now.

Each producing op gets `tg.offset` (bytes into the arena; `tg.offsets`, one per result,
for ops with several results); the function gets `tg.memory = {arena = <bytes>,
unplanned = <bytes>}`, where unplanned is what one buffer per value would take (each
rounded up to the alignment, as in the arena). Function inputs and results are the
caller's buffers and are not placed. A view of a function argument or a weight is not a
view here: the lowering copies it into a buffer of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, IntegerAttr, TensorType, i64
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from tessel.dialects import tg
from tessel.dialects.tg.fused import MEMORY_ATTR, OFFSET_ATTR, OFFSETS_ATTR
from tessel.ir import dtypes

ALIGN = 64


def nbytes(t: TensorType) -> int:
    return math.prod(t.get_shape()) * dtypes.to_numpy(t.element_type).itemsize


def is_view(op: Operation) -> bool:
    """Ops that only reinterpret their input's row-major buffer."""
    if isinstance(op, tg.ReshapeOp | tg.FlattenOp):
        return True
    if isinstance(op, tg.FusedOp):
        inner = [o for o in op.body.block.ops if not isinstance(o, tg.YieldOp)]
        return bool(inner) and all(isinstance(o, tg.ReshapeOp | tg.FlattenOp) for o in inner)
    return False


@dataclass
class Buffer:
    producer: Operation
    size: int
    start: int
    end: int
    offset: int = -1
    aliases: list[SSAValue] = field(default_factory=list)
    # buffers built in place inside this one, with their byte offset in it (slab concats)
    members: list[tuple[Buffer, int]] = field(default_factory=list)


def slab_pieces(op: Operation) -> list[tuple[SSAValue, int]] | None:
    """For a group that is one concat of contiguous slabs (tg.ConcatOp.in_slabs): each
    non-empty piece (a value outside the group) with its byte offset in the result; else
    None. tg-to-kernel copies these pieces into place instead of building a kernel."""
    if not isinstance(op, tg.FusedOp):
        return None
    inner = [o for o in op.body.block.ops if not isinstance(o, tg.YieldOp)]
    if len(inner) != 1 or not isinstance(concat := inner[0], tg.ConcatOp) or not concat.in_slabs:
        return None
    slabs, at = [], 0
    for operand in concat.inputs:
        if not isinstance(operand, BlockArgument) or operand.block is not op.body.block:
            return None
        piece = op.inputs[operand.index]
        size = nbytes(tg.tensor_of(piece))
        if size:
            slabs.append((piece, at))
        at += size
    return slabs


def lifetimes(block: Block) -> list[Buffer]:
    position = {op: i for i, op in enumerate(block.ops)}
    returned = {v for op in block.ops if isinstance(op, func.ReturnOp) for v in op.operands}
    root: dict[SSAValue, Buffer] = {}
    buffers: list[Buffer] = []
    for op in block.ops:
        if not isinstance(op, tg.TgOp | tg.FusedOp) or isinstance(op, tg.WeightOp | tg.ConstantOp):
            continue
        if is_view(op) and op.operands[0] in root:
            buf = root[op.operands[0]]
            root[op.results[0]] = buf
            buf.aliases.append(op.results[0])
            continue
        for result in op.results:
            assert isinstance(result.type, TensorType)  # a tg op's results are tensors
            buf = Buffer(op, nbytes(result.type), position[op], position[op], aliases=[result])
            root[result] = buf
            buffers.append(buf)
    planned = []
    for buf in buffers:
        if any(v in returned for v in buf.aliases):
            continue  # lives in the caller's output buffer
        last = [position[use.operation] for v in buf.aliases for use in v.uses if use.operation in position]
        buf.end = max([buf.start, *last])
        planned.append(buf)
    return _concat_in_place(block, planned, root)


def _concat_in_place(block: Block, planned: list[Buffer], root: dict[SSAValue, Buffer]) -> list[Buffer]:
    """Moves buffers inside slab concats' buffers (Buffer.members) and returns the buffers
    left to place. The concats are taken last first, each getting:

    - the earlier concats whose pieces are a prefix of its own (DenseNet's block: each
      layer's concat is the one before it and one more feature), as views of its front;
    - its pieces, where a piece is the whole of its own buffer (no reshape shares it), that
      buffer is planned and in no other concat, it is the first piece made of that buffer
      here, and its slab starts on the ALIGN boundary every buffer has. A piece of several
      concats that are not prefixes of one another is built in the last and copied into
      the others."""
    kept = {id(b) for b in planned}
    concats = [
        (root[op.results[0]], slabs)
        for op in block.ops
        if (slabs := slab_pieces(op)) is not None and op.results[0] in root and id(root[op.results[0]]) in kept
    ]
    taken: set[int] = set()

    def claim(outer: Buffer, buf: Buffer, at: int) -> None:
        outer.members.append((buf, at))
        outer.start, outer.end = min(outer.start, buf.start), max(outer.end, buf.end)
        taken.add(id(buf))

    for j in reversed(range(len(concats))):
        outer, slabs = concats[j]
        if id(outer) in taken:
            continue
        for inner, front in concats[:j]:
            if id(inner) not in taken and front == slabs[: len(front)]:
                claim(outer, inner, 0)
        for piece, at in slabs:
            buf = root.get(piece)
            if buf is None or id(buf) not in kept or id(buf) in taken:
                continue
            if buf.members or buf.aliases != [piece] or at % ALIGN:
                continue
            claim(outer, buf, at)
    return [b for b in planned if id(b) not in taken]


def place(buffers: list[Buffer]) -> int:
    """Greedy by size: each buffer at the lowest aligned offset free during its lifetime."""
    placed: list[Buffer] = []
    arena = 0
    for buf in sorted(buffers, key=lambda b: (-b.size, b.start)):
        busy = sorted((p.offset, p.offset + p.size) for p in placed if p.start <= buf.end and buf.start <= p.end)
        offset = 0
        for lo, hi in busy:
            if offset + buf.size <= lo:
                break
            offset = max(offset, -(-hi // ALIGN) * ALIGN)
        buf.offset = offset
        placed.append(buf)
        arena = max(arena, offset + buf.size)
        for member, at in buf.members:
            member.offset = offset + at
    return arena


@dataclass(frozen=True)
class TgPlanMemory(ModulePass):
    name = "tg-plan-memory"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in op.walk():
            if not isinstance(fn, func.FuncOp) or not fn.body.blocks:
                continue
            buffers = lifetimes(fn.body.block)
            arena = place(buffers)
            every = [*buffers, *(m for b in buffers for m, _ in b.members)]
            offsets: dict[Operation, dict[int, int]] = {}
            for buf in every:
                index = buf.producer.results.index(buf.aliases[0])
                offsets.setdefault(buf.producer, {})[index] = buf.offset
            for producer, by_result in offsets.items():
                if len(producer.results) == 1:
                    producer.attributes[OFFSET_ATTR] = IntegerAttr(by_result[0], i64)
                else:
                    values = [by_result.get(i, -1) for i in range(len(producer.results))]
                    producer.attributes[OFFSETS_ATTR] = DenseArrayBase.from_list(i64, values)
            unplanned = sum(-(-b.size // ALIGN) * ALIGN for b in every)
            fn.attributes[MEMORY_ATTR] = DictionaryAttr(
                {"arena": IntegerAttr(arena, i64), "unplanned": IntegerAttr(unplanned, i64)}
            )
