"""The instruction codec is bit-exact with hw_spec.h's bit-fields: known field positions,
random round trips through words, bytes and the `vta` dialect's ops and text, and clear errors."""

from __future__ import annotations

import random
from dataclasses import fields, replace
from typing import Any

import pytest
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects import vta
from tessel.dialects.context import make_context
from tessel.dialects.vta import isa
from tessel.dialects.vta.config import VtaConfig, preset
from tessel.dialects.vta.program import Program
from tessel.ir.source import parse_module, print_module, verify
from tessel.targets.vta.translate import from_bytes, listing_line, to_bytes

CFG = preset("pynq")


def _bits(word: int, lo: int, width: int) -> int:
    return (word >> lo) & ((1 << width) - 1)


def test_load_fields_sit_where_hw_spec_puts_them():
    insn = isa.MemInsn(
        memory_type=isa.Mem.INP,
        sram_base=0x1234,
        dram_base=0xDEADBEEF,
        y_size=7,
        x_size=58,
        x_stride=56,
        y_pad_0=1,
        y_pad_1=2,
        x_pad_0=3,
        x_pad_1=4,
        pop_next=True,
        push_next=True,
    )
    w = isa.encode(insn, CFG)
    assert _bits(w, 0, 3) == 0  # LOAD
    assert [_bits(w, 3 + i, 1) for i in range(4)] == [0, 1, 0, 1]  # pop_prev, pop_next, push_prev, push_next
    assert _bits(w, 7, 3) == 2 and _bits(w, 10, 16) == 0x1234 and _bits(w, 26, 32) == 0xDEADBEEF
    # word 1: sizes, stride and the four pads
    assert [_bits(w, 64, 16), _bits(w, 80, 16), _bits(w, 96, 16)] == [7, 58, 56]
    assert [_bits(w, 112 + 4 * i, 4) for i in range(4)] == [1, 2, 3, 4]


def test_gemm_and_alu_fields():
    g = isa.GemmInsn(
        reset=True,
        uop_bgn=8191,
        uop_end=8192,
        iter_out=3,
        iter_in=5,
        dst_factor_out=1,
        dst_factor_in=2,
        src_factor_out=3,
        src_factor_in=4,
        wgt_factor_out=5,
        wgt_factor_in=6,
    )
    w = isa.encode(g, CFG)
    assert _bits(w, 0, 3) == 2 and _bits(w, 7, 1) == 1
    assert [_bits(w, 8, 13), _bits(w, 21, 14), _bits(w, 35, 14), _bits(w, 49, 14)] == [8191, 8192, 3, 5]
    assert [_bits(w, 64 + 11 * i, 11) for i in range(4)] == [1, 2, 3, 4]
    assert [_bits(w, 108, 10), _bits(w, 118, 10)] == [5, 6]
    a = isa.AluInsn(alu_opcode=isa.AluOp.SHR, use_imm=True, imm=-3, uop_end=1)
    w = isa.encode(a, CFG)
    assert _bits(w, 0, 3) == 4 and _bits(w, 108, 3) == 3 and _bits(w, 111, 1) == 1
    assert _bits(w, 112, 16) == (-3) & 0xFFFF  # the signed immediate fills the top 16 bits


def test_uop_packs_dst_src_wgt_into_32_bits():
    assert isa.encode_uop(isa.Uop(dst=5, src=1024, wgt=512), CFG) == 5 | 1024 << 11 | 512 << 22
    assert isa.decode_uop(0xFFFFFFFF, CFG) == isa.Uop(2047, 2047, 1023)


def _random_insn(rng: random.Random) -> isa.Insn:
    kind = rng.choice([isa.MemInsn, isa.GemmInsn, isa.AluInsn, isa.FinishInsn])
    widths = {name: width for name, width, _ in isa.layout(kind, CFG)}
    args: dict[str, Any] = {}
    for f in fields(kind):
        if f.name == "store":
            args[f.name] = rng.random() < 0.5
        elif f.name == "memory_type":
            args[f.name] = rng.choice(list(isa.Mem))
        elif f.name == "alu_opcode":
            args[f.name] = rng.choice(list(isa.AluOp))
        elif f.name == "imm":
            args[f.name] = rng.randint(-(1 << 15), (1 << 15) - 1)
        elif widths.get(f.name) == 1:
            args[f.name] = rng.random() < 0.5
        else:
            args[f.name] = rng.randint(0, (1 << widths[f.name]) - 1)
    return kind(**args)


def test_random_round_trips():
    rng = random.Random(7)
    insns = [_random_insn(rng) for _ in range(400)]
    for insn in insns:
        assert isa.decode(isa.encode(insn, CFG), CFG) == insn
    assert from_bytes(to_bytes(insns, CFG), CFG) == insns


def _expressible(insn: isa.Insn) -> isa.Insn:
    """The instruction as the dialect can hold it: an ALU immediate only when it is used (the
    hardware ignores it otherwise), stores of OUT or ACC without padding (what STORE does)."""
    if isinstance(insn, isa.AluInsn) and not insn.use_imm:
        return replace(insn, imm=0)
    if isinstance(insn, isa.MemInsn) and insn.store:
        mem = insn.memory_type if insn.memory_type in (isa.Mem.OUT, isa.Mem.ACC) else isa.Mem.OUT
        return replace(insn, memory_type=mem, y_pad_0=0, y_pad_1=0, x_pad_0=0, x_pad_1=0)
    return insn


def test_random_round_trips_through_the_ops_and_their_text():
    rng = random.Random(11)
    insns = [_expressible(i) for i in (_random_insn(rng) for _ in range(400)) if not isinstance(i, isa.FinishInsn)]
    for insn in insns:
        assert vta.insn_op(insn).insn() == insn
    prog = Program(CFG, insns=[*insns, isa.FinishInsn(pop_prev=True, push_next=True)])
    text = print_module(ModuleOp([vta.ProgramOp.make("p", prog)]))
    parsed = parse_module(make_context(), text)
    verify(parsed)
    program = parsed.body.block.first_op
    assert isinstance(program, vta.ProgramOp)
    assert program.program().insns == prog.insns


def test_out_of_range_fields_are_named():
    with pytest.raises(isa.EncodeError, match=r"LOAD: field sram_base=65536 does not fit 16 bits"):
        isa.encode(isa.MemInsn(sram_base=1 << 16), CFG)
    with pytest.raises(isa.EncodeError, match=r"ALU: field imm=40000"):
        isa.encode(isa.AluInsn(use_imm=True, imm=40000), CFG)
    with pytest.raises(isa.EncodeError, match="unknown opcode 7"):
        isa.decode(7, CFG)


def test_field_widths_follow_the_configuration():
    big = VtaConfig(name="big-acc", log_acc_buff_size=18)  # 4096 accumulators: 12-bit indices
    assert dict((n, w) for n, w, _ in isa.layout(isa.GemmInsn, big))["dst_factor_out"] == 12
    with pytest.raises(isa.EncodeError, match="more than 32"):
        isa.encode_uop(isa.Uop(), big)  # dst 12 + src 12 + wgt 10 no longer fit a micro-op


def test_listing_lines():
    assert listing_line(replace(isa.FinishInsn(), pop_prev=True)) == "finish(deps=[pop_prev])"
    load = isa.MemInsn(
        memory_type=isa.Mem.INP, y_size=8, x_size=8, x_stride=8, y_pad_0=1, y_pad_1=1, x_pad_0=1, x_pad_1=1
    )
    assert listing_line(load) == "load(inp, sram=0, dram=0, y=8, x=8, stride=8, pad=[1, 1, 1, 1])"
