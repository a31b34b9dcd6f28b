"""LLVM IR of the vector memory ops: loads and stores (plain and masked), and transfers
along an outer dimension (passes/kernel/loops/transfer.py), for llvm_emit.FunctionEmitter."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Protocol

from xdsl.dialects import vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr

from tessel.targets.cpu.llvm_tables import llvm_type, mangle


class Emitter(Protocol):
    """What these functions use of llvm_emit.FunctionEmitter."""

    def fresh(self, hint: str = "v") -> str: ...
    def line(self, text: str) -> None: ...
    def typed(self, value: SSAValue) -> str: ...
    def declare(self, line: str) -> None: ...
    def address(self, base: SSAValue, indices: Iterable[SSAValue]) -> str: ...


def is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def alignment(t: Attribute) -> int:
    if isinstance(t, VectorType):
        t = t.element_type
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    sizes: dict[type[Attribute], int] = {Float16Type: 2, BFloat16Type: 2, Float32Type: 4, Float64Type: 8}
    return sizes.get(type(t), 8)


def load(em: Emitter, op: vector.LoadOp | vector.MaskedLoadOp, name: str) -> None:
    """A vector load. Booleans are bytes in memory (numpy's and ONNX's layout) but LLVM
    packs `<N x i1>` into bits, so boolean lanes are loaded as bytes and compared with 0."""
    vt = op.results[0].type
    assert isinstance(vt, VectorType)
    boolean = is_bool(vt.element_type)
    memory = VectorType(IntegerType(8), vt.get_shape()) if boolean else vt
    mt = llvm_type(memory)
    ptr = em.address(op.base, op.indices)
    align = alignment(vt.element_type)
    raw = em.fresh() if boolean else name
    if isinstance(op, vector.LoadOp):
        em.line(f"{raw} = load {mt}, ptr {ptr}, align {align}")
    else:
        fn = f"llvm.masked.load.{mangle(memory)}.p0"
        em.declare(f"declare {mt} @{fn}(ptr, i32, {llvm_type(op.mask.type)}, {mt})")
        passthru = bool_bytes(em, op.pass_thru) if boolean else em.typed(op.pass_thru)
        em.line(f"{raw} = call {mt} @{fn}(ptr {ptr}, i32 {align}, {em.typed(op.mask)}, {passthru})")
    if boolean:
        em.line(f"{name} = icmp ne {mt} {raw}, zeroinitializer")


def store(em: Emitter, op: vector.StoreOp | vector.MaskedStoreOp) -> None:
    """A vector store; boolean lanes are stored as bytes (see load)."""
    value = op.vector if isinstance(op, vector.StoreOp) else op.value_to_store
    vt = value.type
    assert isinstance(vt, VectorType)
    boolean = is_bool(vt.element_type)
    memory = VectorType(IntegerType(8), vt.get_shape()) if boolean else vt
    typed = bool_bytes(em, value) if boolean else em.typed(value)
    ptr = em.address(op.base, op.indices)
    align = alignment(vt.element_type)
    if isinstance(op, vector.StoreOp):
        em.line(f"store {typed}, ptr {ptr}, align {align}")
        return
    fn = f"llvm.masked.store.{mangle(memory)}.p0"
    em.declare(f"declare void @{fn}({llvm_type(memory)}, ptr, i32, {llvm_type(op.mask.type)})")
    em.line(f"call void @{fn}({typed}, ptr {ptr}, i32 {align}, {em.typed(op.mask)})")


def transfer(em: Emitter, op: vector.TransferReadOp | vector.TransferWriteOp, name: str) -> None:
    """A vector along an outer dimension of a buffer (passes/kernel/loops/transfer.py),
    lane by lane at constant offsets from one address: LLVM folds each offset into its
    load's or store's addressing. (As llvm.masked.gather/scatter, Zen 5 ran vscatterdps
    microcoded and the pointer vectors cost extracts: ResNet-18-int8's stem 0.31 ->
    0.85 ms.) Masked (a tail's lanes): the masked intrinsics, over a pointer vector."""
    t = op.source.type
    assert isinstance(t, MemRefType)
    vt = op.result.type if isinstance(op, vector.TransferReadOp) else op.vector.type
    assert isinstance(vt, VectorType)
    n = vt.get_shape()[0]
    (dim,) = (r.position for r in op.permutation_map.data.results if isinstance(r, AffineDimExpr))
    stride = math.prod(t.get_shape()[dim + 1 :])
    base = em.address(op.source, op.indices)
    et, vty, align = llvm_type(t.element_type), llvm_type(vt), alignment(vt.element_type)
    stored = op.vector if isinstance(op, vector.TransferWriteOp) else None
    if op.mask is None:
        value = "poison"
        for lane in range(n):
            ptr, x = em.fresh(), em.fresh()
            em.line(f"{ptr} = getelementptr {et}, ptr {base}, i64 {lane * stride}")
            if stored is None:
                step = name if lane == n - 1 else em.fresh()
                em.line(f"{x} = load {et}, ptr {ptr}, align {align}")
                em.line(f"{step} = insertelement {vty} {value}, {et} {x}, i64 {lane}")
                value = step
            else:
                em.line(f"{x} = extractelement {em.typed(stored)}, i64 {lane}")
                em.line(f"store {et} {x}, ptr {ptr}, align {align}")
        return
    ptrs = em.fresh()
    offsets = ", ".join(f"i64 {lane * stride}" for lane in range(n))
    em.line(f"{ptrs} = getelementptr {et}, ptr {base}, <{n} x i64> <{offsets}>")
    if isinstance(op, vector.TransferReadOp):
        fn = f"llvm.masked.gather.{mangle(vt)}.v{n}p0"
        em.declare(f"declare {vty} @{fn}(<{n} x ptr>, i32, <{n} x i1>, {vty})")
        one, passthru = em.fresh(), em.fresh()
        em.line(f"{one} = insertelement <1 x {et}> poison, {em.typed(op.padding)}, i64 0")
        em.line(f"{passthru} = shufflevector <1 x {et}> {one}, <1 x {et}> poison, <{n} x i32> zeroinitializer")
        em.line(f"{name} = call {vty} @{fn}(<{n} x ptr> {ptrs}, i32 {align}, {em.typed(op.mask)}, {vty} {passthru})")
        return
    fn = f"llvm.masked.scatter.{mangle(vt)}.v{n}p0"
    em.declare(f"declare void @{fn}({vty}, <{n} x ptr>, i32, <{n} x i1>)")
    assert stored is not None
    em.line(f"call void @{fn}({em.typed(stored)}, <{n} x ptr> {ptrs}, i32 {align}, {em.typed(op.mask)})")


def bool_bytes(em: Emitter, value: SSAValue) -> str:
    """A `<N x i1>` value as typed `<N x i8>` bytes (0 or 1)."""
    vt = value.type
    assert isinstance(vt, VectorType)
    wide = em.fresh()
    bytes_t = llvm_type(VectorType(IntegerType(8), vt.get_shape()))
    em.line(f"{wide} = zext {em.typed(value)} to {bytes_t}")
    return f"{bytes_t} {wide}"
