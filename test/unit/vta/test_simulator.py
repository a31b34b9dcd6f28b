"""The functional simulator's instruction semantics against numpy, and its queue rules."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.dialects.vta import isa
from tessel.dialects.vta.config import preset
from tessel.dialects.vta.program import Program
from tessel.dialects.vta.reference import SimError, _alu_apply, run

CFG = preset("pynq")


def _program(insns: list[isa.Insn]) -> Program:
    prog = Program(CFG)
    prog.alloc("input", (4, 3, 16), "int8")
    prog.alloc("weight", (2, 16, 16), "int8")
    prog.alloc("output", (4, 5, 16), "int8")
    prog.insns = [*insns, isa.FinishInsn()]
    return prog


def test_padded_load_gemm_and_truncating_store():
    """A 3x3 input tile loaded with one row and column of zero padding on each side, multiplied
    by one 16x16 weight block per pixel, stored as int8 (truncated)."""
    rng = np.random.default_rng(0)
    prog = _program([])
    x = rng.integers(-128, 128, (4, 3, 16), dtype=np.int8)  # 4 rows x 3 columns of 16 lanes
    wt = rng.integers(-128, 128, (2, 16, 16), dtype=np.int8)
    prog.uops = [isa.Uop(dst=0, src=0, wgt=1)]
    prog.place_uops()
    inp0, wgt0, out0, uop0 = (
        prog.tensors[n].base(b) for n, b in (("input", 16), ("weight", 256), ("output", 16), ("uops", 4))
    )
    body = [
        isa.MemInsn(memory_type=isa.Mem.UOP, sram_base=0, dram_base=uop0, y_size=1, x_size=1, x_stride=1),
        isa.MemInsn(
            memory_type=isa.Mem.INP,
            sram_base=0,
            dram_base=inp0,
            y_size=4,
            x_size=3,
            x_stride=3,
            y_pad_0=1,
            y_pad_1=1,
            x_pad_0=1,
            x_pad_1=1,
        ),
        isa.MemInsn(
            memory_type=isa.Mem.WGT, sram_base=0, dram_base=wgt0, y_size=1, x_size=2, x_stride=2, push_next=True
        ),
        # every padded pixel (6 x 5) times weight block 1, accumulated twice into a reset tile
        isa.GemmInsn(
            reset=True, uop_bgn=0, uop_end=1, iter_out=6, iter_in=5, dst_factor_out=5, dst_factor_in=1, pop_prev=True
        ),
        isa.GemmInsn(
            uop_bgn=0,
            uop_end=1,
            iter_out=6,
            iter_in=5,
            dst_factor_out=5,
            dst_factor_in=1,
            src_factor_out=5,
            src_factor_in=1,
        ),
        isa.GemmInsn(
            uop_bgn=0,
            uop_end=1,
            iter_out=6,
            iter_in=5,
            dst_factor_out=5,
            dst_factor_in=1,
            src_factor_out=5,
            src_factor_in=1,
            push_next=True,
        ),
        isa.MemInsn(
            store=True,
            memory_type=isa.Mem.OUT,
            sram_base=5,
            dram_base=out0,
            y_size=4,
            x_size=5,
            x_stride=5,
            pop_prev=True,
        ),
    ]
    prog.insns = [*body, isa.FinishInsn()]
    dram = prog.dram()
    prog.write(dram, "input", x)
    prog.write(dram, "weight", wt)
    trace = run(prog, dram)
    assert trace.deadlock is None and not trace.leftover and trace.gemm_uops == 60
    padded = np.pad(x.astype(np.int64), ((1, 1), (1, 1), (0, 0)))  # (6, 5, 16)
    acc = 2 * np.einsum("hwk,mk->hwm", padded, wt[1].astype(np.int64))
    expected = acc.reshape(30, 16)[5:25].astype(np.int32).astype(np.int8)  # truncation, rows 1..4
    assert np.array_equal(prog.read(dram, "output").reshape(20, 16), expected)


@pytest.mark.parametrize(
    ("op", "a", "b", "want"),
    [
        (isa.AluOp.MIN, [5, -7], [3, 3], [3, -7]),
        (isa.AluOp.MAX, [5, -7], [0, 0], [5, 0]),
        (isa.AluOp.ADD, [2**31 - 1, -1], [1, -1], [-(2**31), -2]),  # int32 wrap-around
        (isa.AluOp.SHR, [-9, 9], [1, 1], [-5, 4]),  # arithmetic: floor
        (isa.AluOp.SHR, [3, -3], [-2, -2], [12, -12]),  # a negative amount shifts left
        (isa.AluOp.SHR, [1 << 20, 3], [33, 17], [1 << 19, 3 << 15]),  # low 5 bits, signed: 33 -> 1, 17 -> -15
        (isa.AluOp.MUL, [70000, -3], [3, 255], [210000, 3]),  # low 8 bits, signed: 255 -> -1
    ],
)
def test_alu_lanes(op, a, b, want):
    got = _alu_apply(op, np.array(a, np.int32), np.array(b, np.int32))
    assert got.tolist() == want


def test_alu_order_matters_when_an_execution_reads_an_earlier_write():
    """acc[i] += acc[i-1] over a chain is a prefix sum only in the hardware's order."""
    prog = _program([])
    prog.uops = [isa.Uop(dst=1, src=0)]
    prog.place_uops()
    uop0 = prog.tensors["uops"].base(4)
    acc = prog.alloc("acc", (4, 16), "int32")
    prog.insns = [
        isa.MemInsn(memory_type=isa.Mem.UOP, sram_base=0, dram_base=uop0, y_size=1, x_size=1, x_stride=1),
        isa.MemInsn(memory_type=isa.Mem.ACC, sram_base=0, dram_base=acc.base(64), y_size=1, x_size=4, x_stride=4),
        isa.AluInsn(
            alu_opcode=isa.AluOp.ADD,
            uop_bgn=0,
            uop_end=1,
            iter_out=1,
            iter_in=3,
            dst_factor_in=1,
            src_factor_in=1,
            push_next=True,
        ),
        isa.MemInsn(
            store=True,
            memory_type=isa.Mem.OUT,
            sram_base=0,
            dram_base=prog.tensors["output"].base(16),
            y_size=1,
            x_size=4,
            x_stride=4,
            pop_prev=True,
        ),
        isa.FinishInsn(),
    ]
    dram = prog.dram()
    prog.write(dram, "acc", np.ones((4, 16), np.int32))
    run(prog, dram)
    assert prog.read(dram, "output").reshape(-1, 16)[:4, 0].tolist() == [1, 2, 3, 4]


def test_deadlock_and_leftover_tokens_are_reported():
    # compute waits for data no load announces
    waits = _program([isa.GemmInsn(reset=True, uop_end=0, pop_prev=True)])
    trace = run(waits, waits.dram())
    assert trace.deadlock == "deadlock: compute waits at instruction 0 (GEMM) for l2g"
    # a load announces data nobody consumes
    extra = _program([isa.MemInsn(memory_type=isa.Mem.INP, y_size=0, push_next=True)])
    assert run(extra, extra.dram()).leftover == {"l2g": 1}


def test_flags_a_module_does_not_have_and_bad_indices_fail():
    with pytest.raises(SimError, match="runs on the load module, which has no pop_prev"):
        run(_program([isa.MemInsn(memory_type=isa.Mem.INP, pop_prev=True)]), np.zeros(256, np.uint8))
    with pytest.raises(SimError, match="STORE\\) has padding"):
        run(
            _program([isa.MemInsn(store=True, memory_type=isa.Mem.OUT, y_size=1, x_size=1, y_pad_0=1)]),
            np.zeros(256, np.uint8),
        )
    prog = _program([isa.MemInsn(memory_type=isa.Mem.INP, sram_base=2047, dram_base=0, y_size=1, x_size=2, x_stride=2)])
    with pytest.raises(SimError, match="INP SRAM index 2048 out of range"):
        run(prog, prog.dram())
    with pytest.raises(SimError, match="does not end with FINISH"):
        run(Program(CFG), np.zeros(256, np.uint8))


def test_back_to_back_updates_of_one_accumulator_are_a_pipeline_hazard():
    """Two micro-ops on the same accumulator in a row: the second reads before the first
    wrote (II=1 read-modify-write); the simulator's result is right, the hardware's would not be."""
    from tessel.dialects.vta.hazards import check

    prog = _program([])
    prog.uops = [isa.Uop(dst=0, src=0, wgt=0), isa.Uop(dst=0, src=1, wgt=0)]
    prog.place_uops()
    prog.insns = [
        isa.MemInsn(
            memory_type=isa.Mem.UOP, sram_base=0, dram_base=prog.tensors["uops"].base(4), y_size=1, x_size=2, x_stride=2
        ),
        isa.GemmInsn(uop_bgn=0, uop_end=2, iter_out=1, iter_in=4, dst_factor_in=1, src_factor_in=1),
        isa.FinishInsn(),
    ]
    trace = run(prog, prog.dram())
    assert trace.pipeline == [(1, 1)]
    report = check(prog, trace)
    assert not report.ok and "updates an accumulator again after 1 micro-ops" in report.lines(prog)[0]
