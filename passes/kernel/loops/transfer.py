"""Vectors whose lanes run along an outer dimension of a buffer: vector.transfer_read and
vector.transfer_write with a permutation map that picks that dimension.

An int8 convolution vectorizes its 16 output channels, and its NCHW output and residual
input have the channels as their second dimension: each vector is 16 elements a plane
apart. Built lane by lane, each was 16 scalar loads and inserts (or extracts and stores)
with their index arithmetic, two thirds of ResNet-18-int8's loop IR (88k lines) and much
of its compile time (11.6 -> 6.8 s cold). As one op each, the CPU target emits the lanes'
loads or stores at constant offsets from one address (targets/cpu/vector_memory.py), and,
under a tail's mask, llvm.masked.gather / scatter.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import vector
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, BoolAttr, IntegerType, MemRefType
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from tessel.passes.kernel.loops.emitter import vector_of


def along(coefficients: Sequence[int | None]) -> int | None:
    """The one dimension of an index whose lanes step by one there and stay put elsewhere
    (None where no such dimension, or where it is the innermost: a plain vector load)."""
    moving = [d for d, c in enumerate(coefficients) if c != 0]
    if len(moving) != 1 or coefficients[moving[0]] != 1 or moving[0] == len(coefficients) - 1:
        return None
    return moving[0]


def transferable(element: Attribute) -> bool:
    """Booleans are bytes in memory but bits in vectors (targets/cpu/llvm_emit.py): they
    stay lane by lane."""
    return not (isinstance(element, IntegerType) and element.width.data == 1)


def _lanes_map(rank: int, dim: int) -> AffineMapAttr:
    return AffineMapAttr(AffineMap(rank, 0, (AffineDimExpr(dim),)))


def read(
    buf: SSAValue, start: Sequence[SSAValue], dim: int, width: int, padding: SSAValue, mask: SSAValue | None
) -> vector.TransferReadOp:
    """`width` elements of buf from `start` on along `dim` (masked lanes read `padding`)."""
    t = buf.type
    assert isinstance(t, MemRefType)
    return vector.TransferReadOp(
        buf,
        list(start),
        padding,
        vector_of(t.element_type, width),
        ArrayAttr([BoolAttr.from_bool(mask is None)]),
        _lanes_map(t.get_num_dims(), dim),
        mask,
    )


def write(
    value: SSAValue, buf: SSAValue, start: Sequence[SSAValue], dim: int, mask: SSAValue | None
) -> vector.TransferWriteOp:
    """value's lanes into buf from `start` on along `dim` (masked lanes not written)."""
    t = buf.type
    assert isinstance(t, MemRefType)
    return vector.TransferWriteOp(
        value,
        buf,
        list(start),
        ArrayAttr([BoolAttr.from_bool(mask is None)]),
        mask,
        _lanes_map(t.get_num_dims(), dim),
    )
