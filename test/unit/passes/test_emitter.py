"""The loop emitter's index arithmetic (passes/kernel/loops/emitter.py): constants fold,
and the same operation on the same values is emitted once per block (a register tile's 28
points share 14 row and 2 column indices), never reused across blocks."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block

from tessel.passes.kernel.loops.emitter import Emitter


def test_constants_fold() -> None:
    e = Emitter(Block())
    assert e.add(3, 4) == 7 and e.mul(5, 3) == 15 and e.floordiv(7, 2) == 3 and e.mod(7, 4) == 3
    assert list(e.block.ops) == []


def test_the_same_index_arithmetic_is_emitted_once_per_block() -> None:
    block = Block(arg_types=[IndexType(), IndexType()])
    i, j = block.args
    e = Emitter(block)
    row = e.add(e.mul(i, 14), 3)
    again = e.add(e.mul(i, 14), 3)
    other = e.add(e.mul(i, 14), 4)
    assert row is again and other is not row
    assert e.add(i, j) is e.add(i, j) and e.add(i, j) is not e.add(j, i)
    assert e.mod(j, 16) is e.mod(j, 16) and e.floordiv(j, 16) is e.floordiv(j, 16)
    kinds = [op.name for op in block.ops if not isinstance(op, arith.ConstantOp)]
    # i*14, +3, +4, i+j, j+i, j floordiv 16, its *16, j - that
    assert kinds == [
        "arith.muli",
        "arith.addi",
        "arith.addi",
        "arith.addi",
        "arith.addi",
        "arith.floordivsi",
        "arith.muli",
        "arith.subi",
    ]


def test_a_nested_block_emits_its_own() -> None:
    outer_block = Block(arg_types=[IndexType()])
    (i,) = outer_block.args
    outer = Emitter(outer_block)
    value = outer.mul(i, 16)
    inner = Emitter(Block(), outer.consts)
    assert inner.mul(i, 16) is not value
    assert len([op for op in inner.block.ops if isinstance(op, arith.MuliOp)]) == 1
