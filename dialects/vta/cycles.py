"""The cycle-approximate model: the three modules run concurrently under the token rules.

Each instruction starts when its module is free, its fetch has happened, and every token it
pops has been pushed (a push happens when the pushing instruction completes). Its duration:

    LOAD / STORE   dram_latency + rows * row_overhead + ceil(bytes / bus_bytes)
    GEMM           iter_out * iter_in * uops * gemm_ii + pipeline_depth
    ALU            iter_out * iter_in * uops * alu_ii  + pipeline_depth
    FINISH         1

Padding is generated on chip and moves no bytes. The token FIFOs and command queues are taken
as deep enough never to stall the fetch unit (VTA's are 512 deep on PYNQ). Utilization is
the fraction of cycles the GEMM core does useful micro-ops: uop executions / total cycles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .isa import AluInsn, GemmInsn, Insn, MemInsn, Module
from .program import Program
from .reference import Trace, access_bytes


@dataclass
class CycleReport:
    cycles: int = 0
    gemm_cycles: int = 0  # cycles the GEMM core multiplies (reset micro-ops excluded)
    module_busy: dict[str, int] = field(default_factory=dict)
    bytes_loaded: dict[str, int] = field(default_factory=dict)
    bytes_stored: int = 0
    insns: int = 0
    uops: int = 0
    macs: int = 0
    ops_per_byte: float = 0.0

    @property
    def utilization(self) -> float:
        return self.gemm_cycles / self.cycles if self.cycles else 0.0

    def gops(self, clock_mhz: float) -> float:
        return 2 * self.macs / (self.cycles / (clock_mhz * 1e6)) / 1e9 if self.cycles else 0.0

    @property
    def dram_bytes(self) -> int:
        return sum(self.bytes_loaded.values()) + self.bytes_stored


def duration(prog: Program, insn: Insn) -> int:
    t = prog.cfg.timing
    if isinstance(insn, MemInsn):
        if insn.y_size == 0 or insn.x_size == 0:
            return 1  # a token carrier
        return t.dram_latency + insn.y_size * t.row_overhead + math.ceil(access_bytes(prog, insn) / prog.cfg.bus_bytes)
    if isinstance(insn, GemmInsn | AluInsn):
        ii = t.gemm_ii if isinstance(insn, GemmInsn) else t.alu_ii
        return insn.executions * ii + t.pipeline_depth
    return 1


def estimate(prog: Program, trace: Trace) -> tuple[CycleReport, dict[int, tuple[int, int]]]:
    """Time the schedule the simulator recorded; returns the report and (start, end) per insn."""
    t = prog.cfg.timing
    free = {m: 0 for m in Module}
    busy = {m: 0 for m in Module}
    spans: dict[int, tuple[int, int]] = {}
    rep = CycleReport(insns=len(prog.insns))
    for k in trace.order:
        insn = prog.insns[k]
        start = max(free[insn.module], (k + 1) * t.fetch_cycles, *(spans[s][1] for s in trace.pop_sources.get(k, [])))
        d = duration(prog, insn)
        spans[k] = (start, start + d)
        free[insn.module] = start + d
        busy[insn.module] += d
        if isinstance(insn, MemInsn) and insn.x_size and insn.y_size:
            nbytes = access_bytes(prog, insn)
            if insn.store:
                rep.bytes_stored += nbytes
            else:
                key = insn.memory_type.name.lower()
                rep.bytes_loaded[key] = rep.bytes_loaded.get(key, 0) + nbytes
        elif isinstance(insn, GemmInsn) and not insn.reset:
            n = insn.executions
            rep.gemm_cycles += n * t.gemm_ii
            rep.uops += n
            rep.macs += n * prog.cfg.macs_per_cycle
    rep.cycles = max((e for _, e in spans.values()), default=0)
    rep.module_busy = {m.name.lower(): busy[m] for m in Module}
    rep.ops_per_byte = 2 * rep.macs / rep.dram_bytes if rep.dram_bytes else 0.0
    return rep, spans
