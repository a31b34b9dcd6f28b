"""VTA's instruction set: the five instructions, micro-ops, and their bit-exact encoding.

These records are what the `vta` ops hold (one property per field), what the code generator
builds, what the simulator runs and what `tessel-translate --target vta` writes out; the
encoding lives here because it is also the verifier's rule: a field is valid when it fits its
bit width in the program's configuration.

The layouts follow `hw_spec.h`: each instruction is two little-endian 64-bit words of C
bit-fields packed from the least significant bit in declaration order, where a field that would
straddle a 64-bit boundary starts the next word (the SysV rule for `uint64_t` bit-fields).
Field widths come from the configuration (the micro-op and SRAM index widths are log2 of the
buffer depths), so an encoding is always for a `VtaConfig`. Micro-ops are one 32-bit word:
dst (acc index) | src (inp or acc index) | wgt (wgt index).

Dependency flags name the neighbour in the order load -> compute -> store: for the compute
module "prev" is load and "next" is store; load has only a next, store only a prev.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum
from typing import Any

from .config import VtaConfig


class Opcode(IntEnum):
    LOAD = 0
    STORE = 1
    GEMM = 2
    FINISH = 3
    ALU = 4


class Mem(IntEnum):
    UOP = 0
    WGT = 1
    INP = 2
    ACC = 3
    OUT = 4


class AluOp(IntEnum):
    MIN = 0
    MAX = 1
    ADD = 2
    SHR = 3  # arithmetic; a negative immediate shifts left
    MUL = 4


class Module(IntEnum):
    LOAD = 0
    COMPUTE = 1
    STORE = 2


DEPS = ("pop_prev", "pop_next", "push_prev", "push_next")


@dataclass(frozen=True)
class Insn:
    pop_prev: bool = False
    pop_next: bool = False
    push_prev: bool = False
    push_next: bool = False

    @property
    def opcode(self) -> Opcode:
        raise NotImplementedError

    @property
    def module(self) -> Module:
        return Module.COMPUTE

    def deps(self) -> list[str]:
        return [d for d in DEPS if getattr(self, d)]


@dataclass(frozen=True)
class MemInsn(Insn):
    """LOAD or STORE of a 2-D strided tile; loads pad with zeros on the fly."""

    store: bool = False
    memory_type: Mem = Mem.INP
    sram_base: int = 0
    dram_base: int = 0
    y_size: int = 0
    x_size: int = 0
    x_stride: int = 0
    y_pad_0: int = 0
    y_pad_1: int = 0
    x_pad_0: int = 0
    x_pad_1: int = 0

    @property
    def opcode(self) -> Opcode:
        return Opcode.STORE if self.store else Opcode.LOAD

    @property
    def module(self) -> Module:
        if self.store:
            return Module.STORE
        # compute fills its own micro-op and accumulator buffers (the fetch unit's routing)
        return Module.COMPUTE if self.memory_type in (Mem.UOP, Mem.ACC) else Module.LOAD

    @property
    def rows(self) -> int:
        return self.y_pad_0 + self.y_size + self.y_pad_1

    @property
    def cols(self) -> int:
        return self.x_pad_0 + self.x_size + self.x_pad_1


@dataclass(frozen=True)
class LoopInsn(Insn):
    """What GEMM and ALU share: a micro-op range run inside two affine loops."""

    reset: bool = False
    uop_bgn: int = 0
    uop_end: int = 0
    iter_out: int = 1
    iter_in: int = 1
    dst_factor_out: int = 0
    dst_factor_in: int = 0
    src_factor_out: int = 0
    src_factor_in: int = 0

    @property
    def executions(self) -> int:
        return self.iter_out * self.iter_in * (self.uop_end - self.uop_bgn)


@dataclass(frozen=True)
class GemmInsn(LoopInsn):
    """acc[dst] += inp[src] . wgt[wgt]^T over two affine loops around a micro-op range."""

    wgt_factor_out: int = 0
    wgt_factor_in: int = 0

    @property
    def opcode(self) -> Opcode:
        return Opcode.GEMM


@dataclass(frozen=True)
class AluInsn(LoopInsn):
    """acc[dst] = op(acc[dst], imm or acc[src]) lane-wise, over the same affine loops."""

    alu_opcode: AluOp = AluOp.ADD
    use_imm: bool = False
    imm: int = 0

    @property
    def opcode(self) -> Opcode:
        return Opcode.ALU


@dataclass(frozen=True)
class FinishInsn(Insn):
    @property
    def opcode(self) -> Opcode:
        return Opcode.FINISH


@dataclass(frozen=True)
class Uop:
    dst: int = 0
    src: int = 0
    wgt: int = 0


class EncodeError(ValueError):
    pass


# --------------------------------------------------------------------------- layouts


def _header() -> list[tuple[str, int, bool]]:
    return [("opcode", 3, False), *((d, 1, False) for d in DEPS)]


def layout(kind: type[Insn], cfg: VtaConfig) -> list[tuple[str, int, bool]]:
    """(field, width, signed) in declaration order, as hw_spec.h declares them."""
    uop, acc, inp, wgt = (
        cfg.log2(cfg.uop_depth),
        cfg.log2(cfg.acc_depth),
        cfg.log2(cfg.inp_depth),
        cfg.log2(cfg.wgt_depth),
    )
    loops = [
        ("reset", 1, False),
        ("uop_bgn", uop, False),
        ("uop_end", uop + 1, False),
        ("iter_out", 14, False),
        ("iter_in", 14, False),
    ]
    if kind is MemInsn:
        return [
            *_header(),
            ("memory_type", 3, False),
            ("sram_base", 16, False),
            ("dram_base", 32, False),
            ("y_size", 16, False),
            ("x_size", 16, False),
            ("x_stride", 16, False),
            ("y_pad_0", 4, False),
            ("y_pad_1", 4, False),
            ("x_pad_0", 4, False),
            ("x_pad_1", 4, False),
        ]
    if kind is GemmInsn:
        return [
            *_header(),
            *loops,
            ("dst_factor_out", acc, False),
            ("dst_factor_in", acc, False),
            ("src_factor_out", inp, False),
            ("src_factor_in", inp, False),
            ("wgt_factor_out", wgt, False),
            ("wgt_factor_in", wgt, False),
        ]
    if kind is AluInsn:
        return [
            *_header(),
            *loops,
            ("dst_factor_out", acc, False),
            ("dst_factor_in", acc, False),
            ("src_factor_out", acc, False),
            ("src_factor_in", acc, False),
            ("alu_opcode", 3, False),
            ("use_imm", 1, False),
            ("imm", 16, True),
        ]
    return _header()


def uop_layout(cfg: VtaConfig) -> list[tuple[str, int, bool]]:
    acc, wgt = cfg.log2(cfg.acc_depth), cfg.log2(cfg.wgt_depth)
    return [("dst", acc, False), ("src", acc, False), ("wgt", wgt, False)]


def _positions(fields_: list[tuple[str, int, bool]], unit: int, total: int) -> list[tuple[str, int, int, bool]]:
    placed, pos = [], 0
    for name, width, signed in fields_:
        if pos % unit + width > unit:
            pos += unit - pos % unit  # a bit-field does not straddle its storage unit
        placed.append((name, pos, width, signed))
        pos += width
    if pos > total:
        raise EncodeError(f"the configuration's fields take {pos} bits, more than {total}")
    return placed


def _pack(values: dict[str, int], placed: list[tuple[str, int, int, bool]], what: str) -> int:
    word = 0
    for name, pos, width, signed in placed:
        v = int(values[name])
        lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
        if not lo <= v <= hi:
            raise EncodeError(f"{what}: field {name}={v} does not fit {width} bits ({lo}..{hi})")
        word |= (v & ((1 << width) - 1)) << pos
    return word


def _unpack(word: int, placed: list[tuple[str, int, int, bool]]) -> dict[str, int]:
    out = {}
    for name, pos, width, signed in placed:
        v = (word >> pos) & ((1 << width) - 1)
        if signed and v >> (width - 1):
            v -= 1 << width
        out[name] = v
    return out


def encode(insn: Insn, cfg: VtaConfig) -> int:
    """The instruction as a 128-bit integer (word 0 in the low 64 bits)."""
    values = {f.name: getattr(insn, f.name) for f in fields(insn)}
    values["opcode"] = int(insn.opcode)
    placed = _positions(layout(type(insn), cfg), 64, 128)
    return _pack(values, placed, insn.opcode.name)


def decode(word: int, cfg: VtaConfig) -> Insn:
    opcode = word & 0b111
    try:
        op = Opcode(opcode)
    except ValueError:
        raise EncodeError(f"unknown opcode {opcode}") from None
    kind: type[Insn] = {
        Opcode.LOAD: MemInsn,
        Opcode.STORE: MemInsn,
        Opcode.GEMM: GemmInsn,
        Opcode.ALU: AluInsn,
        Opcode.FINISH: FinishInsn,
    }[op]
    values = _unpack(word, _positions(layout(kind, cfg), 64, 128))
    values.pop("opcode")
    args: dict[str, Any] = dict(values)  # the layout's field names are the record's
    for d in (*DEPS, "reset", "use_imm"):
        if d in args:
            args[d] = bool(args[d])
    if kind is MemInsn:
        args["store"] = op is Opcode.STORE
        try:
            args["memory_type"] = Mem(args["memory_type"])
        except ValueError:
            raise EncodeError(f"unknown memory type {args['memory_type']}") from None
    if kind is AluInsn:
        try:
            args["alu_opcode"] = AluOp(args["alu_opcode"])
        except ValueError:
            raise EncodeError(f"unknown ALU opcode {args['alu_opcode']}") from None
    return kind(**args)


def encode_uop(uop: Uop, cfg: VtaConfig) -> int:
    return _pack({"dst": uop.dst, "src": uop.src, "wgt": uop.wgt}, _positions(uop_layout(cfg), 32, 32), "uop")


def decode_uop(word: int, cfg: VtaConfig) -> Uop:
    return Uop(**_unpack(word, _positions(uop_layout(cfg), 32, 32)))
