"""The hazard checker: every cross-module SRAM conflict must be ordered by tokens.

Two instructions on different modules conflict when they touch overlapping entries of the
same SRAM and at least one writes. The hardware orders them only through program order inside
a module plus token push -> pop edges between modules; anything else is a race whose outcome
depends on timing (VTA's sequential simulator would not notice). We compute vector clocks over
the recorded execution (the simulator's order is a topological order of that happens-before
graph) and report each conflicting pair neither of which happens before the other. Footprints
are intervals (min..max index touched), which is exact for the dense tiles the compiler
emits and conservative otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .isa import AluInsn, GemmInsn, Insn, Mem, MemInsn, Module
from .program import Program
from .reference import Trace, run

Access = tuple[str, int, int, bool]  # buffer, first, last, write


@dataclass(frozen=True)
class Hazard:
    kind: str  # RAW, WAR or WAW
    buffer: str
    first: int  # instruction indices, in program order
    second: int

    def describe(self, prog: Program) -> str:
        a, b = prog.insns[self.first], prog.insns[self.second]
        return (
            f"{self.kind} on {self.buffer}: instruction {self.first} ({a.opcode.name}, {a.module.name.lower()}) and "
            f"{self.second} ({b.opcode.name}, {b.module.name.lower()}) are not ordered by any token"
        )


@dataclass
class Report:
    hazards: list[Hazard]
    deadlock: str | None
    leftover: dict[str, int]
    pipeline: list[tuple[int, int]] = field(default_factory=list)  # from an executed trace only

    @property
    def ok(self) -> bool:
        return not self.hazards and self.deadlock is None and not self.leftover and not self.pipeline

    def lines(self, prog: Program, limit: int = 10) -> list[str]:
        out = [h.describe(prog) for h in self.hazards[:limit]]
        if len(self.hazards) > limit:
            out.append(f"... and {len(self.hazards) - limit} more hazards")
        if self.deadlock:
            out.append(self.deadlock)
        if self.leftover:
            out.append("tokens left at the end: " + ", ".join(f"{q}={n}" for q, n in self.leftover.items()))
        for k, d in self.pipeline[:limit]:
            out.append(
                f"instruction {k} (GEMM) updates an accumulator again after {d} micro-ops, inside the "
                f"{prog.cfg.timing.pipeline_depth}-deep GEMM pipeline (read before the previous write)"
            )
        return out


def footprint(prog: Program, insn: Insn) -> list[Access]:
    """The SRAM intervals an instruction reads and writes."""
    if isinstance(insn, MemInsn):
        if insn.y_size == 0 or insn.x_size == 0:
            return []
        if insn.store:
            return [("acc", insn.sram_base, insn.sram_base + insn.y_size * insn.x_size - 1, False)]
        buf = {Mem.UOP: "uop", Mem.WGT: "wgt", Mem.INP: "inp", Mem.ACC: "acc", Mem.OUT: "acc"}[insn.memory_type]
        return [(buf, insn.sram_base, insn.sram_base + insn.rows * insn.cols - 1, True)]
    if not isinstance(insn, GemmInsn | AluInsn) or insn.uop_end <= insn.uop_bgn:
        return []
    uops = np.array([[u.dst, u.src, u.wgt] for u in prog.uops[insn.uop_bgn : insn.uop_end]] or [[0, 0, 0]])
    # micro-op indices are positions in the program's table, which loads place at uop_bgn
    lo, hi = uops.min(axis=0), uops.max(axis=0)
    span_o, span_i = insn.iter_out - 1, insn.iter_in - 1

    def interval(col: int, fo: int, fi: int) -> tuple[int, int]:
        return int(lo[col]), int(hi[col] + span_o * fo + span_i * fi)

    acc = interval(0, insn.dst_factor_out, insn.dst_factor_in)
    out: list[Access] = [("uop", insn.uop_bgn, insn.uop_end - 1, False), ("acc", *acc, True)]
    if isinstance(insn, GemmInsn) and not insn.reset:
        out.append(("inp", *interval(1, insn.src_factor_out, insn.src_factor_in), False))
        out.append(("wgt", *interval(2, insn.wgt_factor_out, insn.wgt_factor_in), False))
        out.append(("acc", *acc, False))
    elif isinstance(insn, AluInsn) and not insn.reset:
        out.append(("acc", *acc, False))
        if not insn.use_imm:
            out.append(("acc", *interval(1, insn.src_factor_out, insn.src_factor_in), False))
    return out


def _clocks(prog: Program, trace: Trace) -> tuple[dict[int, tuple[int, int, int]], dict[int, int]]:
    """Vector clocks (per module: how many of its instructions happen before or at this one)."""
    position: dict[int, int] = {}
    seen = {m: 0 for m in Module}
    clock: dict[int, tuple[int, int, int]] = {}
    last = {m: (0, 0, 0) for m in Module}
    for k in trace.order:
        m = prog.insns[k].module
        seen[m] += 1
        position[k] = seen[m]
        c = list(last[m])
        for src in trace.pop_sources.get(k, []):
            c = [max(a, b) for a, b in zip(c, clock[src])]
        c[m] = seen[m]
        clock[k] = (c[0], c[1], c[2])  # one count per module: load, compute, store
        last[m] = clock[k]
    return clock, position


def check(prog: Program, trace: Trace | None = None) -> Report:
    """Run the schedule (without executing data) if no trace is given, then look for races."""
    trace = trace or run(prog, np.zeros(1, np.uint8), execute=False)
    clock, position = _clocks(prog, trace)
    by_module: dict[Module, list[int]] = {m: [] for m in Module}
    for k in trace.order:
        by_module[prog.insns[k].module].append(k)
    feet = {k: footprint(prog, prog.insns[k]) for k in trace.order}
    hazards: list[Hazard] = []
    seen: set[tuple[int, int, str]] = set()
    for b in trace.order:
        mb = prog.insns[b].module
        for ma in Module:
            if ma <= mb:
                continue  # each unordered pair once, from the lower module's side
            # instructions of `ma` that b does not know about and that do not know about b
            for a in by_module[ma][clock[b][ma] :]:
                if clock[a][mb] >= position[b]:
                    break  # a (and everything after it on ma) happens after b
                _conflicts(prog, feet[a], feet[b], a, b, hazards, seen)
    hazards.sort(key=lambda h: (min(h.first, h.second), h.kind))
    return Report(hazards, trace.deadlock, trace.leftover, list(trace.pipeline))


def _conflicts(
    prog: Program, fa: list[Access], fb: list[Access], a: int, b: int, hazards: list[Hazard], seen: set
) -> None:
    first, second = sorted((a, b))
    f1, f2 = (fa, fb) if a == first else (fb, fa)
    for buf1, lo1, hi1, w1 in f1:
        for buf2, lo2, hi2, w2 in f2:
            if buf1 != buf2 or hi1 < lo2 or hi2 < lo1 or not (w1 or w2):
                continue
            kind = "WAW" if w1 and w2 else ("RAW" if w1 else "WAR")
            key = (first, second, buf1)
            if key not in seen:
                seen.add(key)
                hazards.append(Hazard(kind, buf1, first, second))
