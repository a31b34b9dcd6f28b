"""tg-plan-memory: place every intermediate tensor at a static offset in one arena.

TVM's static memory planning (OSDI'18, section 3): buffers whose lifetimes do not overlap
share memory. Lifetimes are op positions in the function body (from the producer to the
last use); a value produced by a pure reshape (a `tg.reshape`/`tg.flatten` or a
`tg.fused` made only of them) is the same buffer as its input, so it extends that
buffer's life instead of getting its own. Placement is greedy by size: largest first, each
at the lowest 64-byte-aligned offset free over its whole lifetime (TFLite's arena planner),
which is within a few percent of optimal on CNNs.

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
from xdsl.ir import Block, Operation, SSAValue
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
    return planned


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
            offsets: dict[Operation, dict[int, int]] = {}
            for buf in buffers:
                index = buf.producer.results.index(buf.aliases[0])
                offsets.setdefault(buf.producer, {})[index] = buf.offset
            for producer, by_result in offsets.items():
                if len(producer.results) == 1:
                    producer.attributes[OFFSET_ATTR] = IntegerAttr(by_result[0], i64)
                else:
                    values = [by_result.get(i, -1) for i in range(len(producer.results))]
                    producer.attributes[OFFSETS_ATTR] = DenseArrayBase.from_list(i64, values)
            unplanned = sum(-(-b.size // ALIGN) * ALIGN for b in buffers)
            fn.attributes[MEMORY_ATTR] = DictionaryAttr(
                {"arena": IntegerAttr(arena, i64), "unplanned": IntegerAttr(unplanned, i64)}
            )
