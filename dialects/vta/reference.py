"""The meaning of the `vta` dialect: what a `vta.program` does to DRAM (the functional
simulator) and what a `vta.conv2d` computes (`conv2d`, numpy with the hardware's int32 wrap).

The simulator models VTA's SRAMs, its five instructions, and its three in-order modules
synchronised by four token queues. Like VTA's own `sim_tlpp`, each module runs its queue in
order and an instruction starts only when every token it pops is available; its pushes happen
when it completes. Unlike that simulator (sequential inside a module, so a missing token passes
silently) the execution is recorded — which module ran which instruction in which order — so
`hazards.check` can prove that every cross-module access pair is ordered by tokens, and
`cycles.estimate` can time the same schedule. A stream that cannot make progress is reported
as a deadlock naming the blocked instructions, and tokens left in a queue at the end are
reported too. Every VTA result is compared bit for bit against `conv2d`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tessel.dialects.tg.reference import wrap_int32

from .isa import AluInsn, AluOp, FinishInsn, GemmInsn, Insn, Mem, MemInsn, Module
from .layer import Conv2dLayer
from .program import Program, elem_bytes

# queue name -> (pushing module, flag), (popping module, flag)
QUEUES = {
    "l2g": ((Module.LOAD, "push_next"), (Module.COMPUTE, "pop_prev")),
    "g2l": ((Module.COMPUTE, "push_prev"), (Module.LOAD, "pop_next")),
    "g2s": ((Module.COMPUTE, "push_next"), (Module.STORE, "pop_prev")),
    "s2g": ((Module.STORE, "push_prev"), (Module.COMPUTE, "pop_next")),
}
_ALLOWED = {
    Module.LOAD: {"pop_next", "push_next"},
    Module.STORE: {"pop_prev", "push_prev"},
    Module.COMPUTE: {"pop_prev", "pop_next", "push_prev", "push_next"},
}


class SimError(RuntimeError):
    """The program did something the hardware cannot: a bad index, a flag a module lacks."""


def pops(insn: Insn) -> list[str]:
    return [q for q, (_, (mod, flag)) in QUEUES.items() if mod == insn.module and getattr(insn, flag)]


def pushes(insn: Insn) -> list[str]:
    return [q for q, ((mod, flag), _) in QUEUES.items() if mod == insn.module and getattr(insn, flag)]


@dataclass
class Trace:
    """What ran: instruction indices in execution order, and each pop's matching push."""

    order: list[int] = field(default_factory=list)
    pop_sources: dict[int, list[int]] = field(default_factory=dict)  # insn -> pushing insns
    deadlock: str | None = None
    leftover: dict[str, int] = field(default_factory=dict)
    gemm_uops: int = 0
    alu_uops: int = 0
    # GEMMs that update an accumulator again sooner than the pipeline is deep: (insn, distance)
    pipeline: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Sram:
    inp: np.ndarray
    wgt: np.ndarray
    acc: np.ndarray
    uop: np.ndarray  # (depth, 3) int64: dst, src, wgt

    @classmethod
    def zeros(cls, prog: Program) -> Sram:
        c = prog.cfg
        return cls(
            np.zeros((c.inp_depth, c.block), np.int8),
            np.zeros((c.wgt_depth, c.block, c.block), np.int8),
            np.zeros((c.acc_depth, c.block), np.int32),
            np.zeros((c.uop_depth, 3), np.int64),
        )


def validate(prog: Program) -> list[str]:
    """Flags a module does not have, stores with padding: errors before anything runs."""
    errors = []
    for k, insn in enumerate(prog.insns):
        bad = set(insn.deps()) - _ALLOWED[insn.module]
        if bad:
            errors.append(
                f"instruction {k} ({insn.opcode.name}) runs on the {insn.module.name.lower()} module, which has no {', '.join(sorted(bad))}"
            )
        if isinstance(insn, MemInsn) and insn.store and (insn.y_pad_0 or insn.y_pad_1 or insn.x_pad_0 or insn.x_pad_1):
            errors.append(f"instruction {k} (STORE) has padding, which only loads support")
        if isinstance(insn, MemInsn) and insn.store and insn.memory_type not in (Mem.OUT, Mem.ACC):
            errors.append(f"instruction {k} (STORE) stores {insn.memory_type.name}, not OUT")
    if not prog.insns or not isinstance(prog.insns[-1], FinishInsn):
        errors.append("the stream does not end with FINISH")
    return errors


def run(prog: Program, dram: np.ndarray, execute: bool = True) -> Trace:
    """Run the stream against `dram` (modified in place). `execute=False` schedules only."""
    errors = validate(prog)
    if errors:
        raise SimError(errors[0])
    sram = Sram.zeros(prog)
    queues: dict[Module, list[int]] = {m: [] for m in Module}
    for k, insn in enumerate(prog.insns):
        queues[insn.module].append(k)
    heads = {m: 0 for m in Module}
    tokens: dict[str, list[int]] = {q: [] for q in QUEUES}  # pushing instruction per token, FIFO
    trace = Trace()
    progress = True
    while progress:
        progress = False
        for m in Module:
            while heads[m] < len(queues[m]):
                k = queues[m][heads[m]]
                insn = prog.insns[k]
                need = pops(insn)
                if any(not tokens[q] for q in need):
                    break
                trace.pop_sources[k] = [tokens[q].pop(0) for q in need]
                if execute:
                    _execute(prog, sram, dram, insn, k, trace)
                for q in pushes(insn):
                    tokens[q].append(k)
                trace.order.append(k)
                heads[m] += 1
                progress = True
    blocked = [(m, queues[m][heads[m]]) for m in Module if heads[m] < len(queues[m])]
    if blocked:
        trace.deadlock = "deadlock: " + "; ".join(
            f"{m.name.lower()} waits at instruction {k} ({prog.insns[k].opcode.name}) for {', '.join(q for q in pops(prog.insns[k]) if not tokens[q])}"
            for m, k in blocked
        )
    trace.leftover = {q: len(t) for q, t in tokens.items() if t}
    return trace


# --------------------------------------------------------------------------- semantics


def _execute(prog: Program, sram: Sram, dram: np.ndarray, insn: Insn, k: int, trace: Trace) -> None:
    if isinstance(insn, MemInsn):
        (_store if insn.store else _load)(prog, sram, dram, insn, k)
    elif isinstance(insn, GemmInsn):
        trace.gemm_uops += _gemm(prog, sram, insn, k)
        if not insn.reset:
            d = reuse_distance(_indices(prog, sram, insn, k)[0])
            if d < prog.cfg.timing.pipeline_depth:
                trace.pipeline.append((k, d))
    elif isinstance(insn, AluInsn):
        trace.alu_uops += _alu(prog, sram, insn, k)


def _dram_view(prog: Program, dram: np.ndarray, mem: Mem) -> np.ndarray:
    c = prog.cfg
    if mem is Mem.UOP:
        return dram.view(np.uint32)
    if mem is Mem.WGT:
        return dram.view(np.int8).reshape(-1, c.block, c.block)
    if mem is Mem.ACC:
        return dram.view(np.int32).reshape(-1, c.block)
    return dram.view(np.int8).reshape(-1, c.block)


def _sram(sram: Sram, mem: Mem) -> np.ndarray:
    return {Mem.UOP: sram.uop, Mem.WGT: sram.wgt, Mem.INP: sram.inp, Mem.ACC: sram.acc, Mem.OUT: sram.acc}[mem]


def _check(k: int, what: str, idx: np.ndarray, depth: int) -> None:
    if idx.size and (idx.min() < 0 or idx.max() >= depth):
        raise SimError(
            f"instruction {k}: {what} index {int(idx.max() if idx.max() >= depth else idx.min())} out of range (depth {depth})"
        )


def _load(prog: Program, sram: Sram, dram: np.ndarray, insn: MemInsn, k: int) -> None:
    if insn.x_size == 0 or insn.y_size == 0:
        return  # a token carrier
    src = _dram_view(prog, dram, insn.memory_type)
    rows = insn.dram_base + np.arange(insn.y_size)[:, None] * insn.x_stride + np.arange(insn.x_size)[None, :]
    _check(k, f"DRAM {insn.memory_type.name}", rows, src.shape[0])
    dst = _sram(sram, insn.memory_type)
    _check(
        k,
        f"{insn.memory_type.name} SRAM",
        np.array([insn.sram_base, insn.sram_base + insn.rows * insn.cols - 1]),
        dst.shape[0],
    )
    if insn.memory_type is Mem.UOP:
        words = src[rows.reshape(-1)]
        tile = np.array([[u.dst, u.src, u.wgt] for u in prog.decoded_uops(words)], dtype=np.int64).reshape(
            insn.y_size, insn.x_size, 3
        )
    else:
        tile = src[rows]
    block = np.zeros((insn.rows, insn.cols, *dst.shape[1:]), dtype=dst.dtype)
    block[insn.y_pad_0 : insn.y_pad_0 + insn.y_size, insn.x_pad_0 : insn.x_pad_0 + insn.x_size] = tile
    dst[insn.sram_base : insn.sram_base + insn.rows * insn.cols] = block.reshape(-1, *dst.shape[1:])


def _store(prog: Program, sram: Sram, dram: np.ndarray, insn: MemInsn, k: int) -> None:
    if insn.x_size == 0 or insn.y_size == 0:
        return
    out = _dram_view(prog, dram, Mem.OUT)
    rows = insn.dram_base + np.arange(insn.y_size)[:, None] * insn.x_stride + np.arange(insn.x_size)[None, :]
    _check(k, "DRAM OUT", rows, out.shape[0])
    n = insn.y_size * insn.x_size
    _check(k, "ACC SRAM", np.array([insn.sram_base, insn.sram_base + n - 1]), sram.acc.shape[0])
    # STORE narrows int32 to int8 by truncation (saturation is the ALU's job)
    out[rows.reshape(-1)] = sram.acc[insn.sram_base : insn.sram_base + n].astype(np.int8)


def _indices(prog: Program, sram: Sram, insn: GemmInsn | AluInsn, k: int) -> tuple[np.ndarray, ...]:
    """dst, src, wgt indices of every micro-op execution, in hardware order (out, in, uop)."""
    _check(k, "UOP", np.array([insn.uop_bgn, max(insn.uop_end - 1, insn.uop_bgn)]), sram.uop.shape[0])
    u = sram.uop[insn.uop_bgn : insn.uop_end]
    o = np.arange(insn.iter_out)[:, None, None]
    i = np.arange(insn.iter_in)[None, :, None]
    dst = (u[None, None, :, 0] + o * insn.dst_factor_out + i * insn.dst_factor_in).reshape(-1)
    src = (u[None, None, :, 1] + o * insn.src_factor_out + i * insn.src_factor_in).reshape(-1)
    if isinstance(insn, GemmInsn):
        wgt = (u[None, None, :, 2] + o * insn.wgt_factor_out + i * insn.wgt_factor_in).reshape(-1)
    else:
        wgt = np.zeros_like(dst)
    return dst, src, wgt


def reuse_distance(dst: np.ndarray) -> int:
    """The fewest micro-op executions between two updates of the same accumulator."""
    if dst.size < 2:
        return 1 << 30
    order = np.argsort(dst, kind="stable")
    same = dst[order][1:] == dst[order][:-1]
    gaps = np.diff(order)[same]
    return int(gaps.min()) if gaps.size else 1 << 30


def _gemm(prog: Program, sram: Sram, insn: GemmInsn, k: int) -> int:
    dst, src, wgt = _indices(prog, sram, insn, k)
    _check(k, "ACC", dst, sram.acc.shape[0])
    if insn.reset:
        sram.acc[dst] = 0
        return 0
    _check(k, "INP", src, sram.inp.shape[0])
    _check(k, "WGT", wgt, sram.wgt.shape[0])
    step = 8192
    for s in range(0, dst.size, step):
        d, x, w = dst[s : s + step], src[s : s + step], wgt[s : s + step]
        prod = np.einsum("nk,nmk->nm", sram.inp[x].astype(np.int32), sram.wgt[w].astype(np.int32))
        np.add.at(sram.acc, d, prod)
    return int(dst.size)


def _alu_apply(op: AluOp, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    if op is AluOp.MIN:
        r = np.minimum(a64, b64)
    elif op is AluOp.MAX:
        r = np.maximum(a64, b64)
    elif op is AluOp.ADD:
        r = a64 + b64
    elif op is AluOp.MUL:  # by the operand's low 8 bits, signed (VTA_MUL_ARG_BIT_WIDTH)
        r = a64 * (((b64 & 0xFF) ^ 0x80) - 0x80)
    else:  # SHR by the operand's low 5 bits, signed (VTA_SHR_ARG_BIT_WIDTH): negative shifts left
        amount = ((b64 & 0x1F) ^ 0x10) - 0x10
        r = np.where(amount >= 0, a64 >> np.clip(amount, 0, 31), a64 << np.clip(-amount, 0, 31))
    return wrap_int32(r)  # the int32 datapath


def _alu(prog: Program, sram: Sram, insn: AluInsn, k: int) -> int:
    dst, src, _ = _indices(prog, sram, insn, k)
    _check(k, "ACC", dst, sram.acc.shape[0])
    if insn.reset:
        sram.acc[dst] = 0
        return 0
    if not insn.use_imm:
        _check(k, "ACC", src, sram.acc.shape[0])
    independent = np.unique(dst).size == dst.size and (
        insn.use_imm or not np.isin(src, dst).any() or np.array_equal(src, dst)
    )
    if independent:
        b = np.full((dst.size, sram.acc.shape[1]), insn.imm, np.int32) if insn.use_imm else sram.acc[src]
        sram.acc[dst] = _alu_apply(insn.alu_opcode, sram.acc[dst], b)
    else:  # an execution reads what an earlier one wrote: keep the hardware's order
        for d, s in zip(dst, src):
            b = np.full(sram.acc.shape[1], insn.imm, np.int32) if insn.use_imm else sram.acc[s]
            sram.acc[d] = _alu_apply(insn.alu_opcode, sram.acc[d], b)
    return int(dst.size)


def access_bytes(prog: Program, insn: MemInsn) -> int:
    """Bytes an instruction moves over the bus (padding is generated on chip)."""
    return insn.y_size * insn.x_size * elem_bytes(prog.cfg, insn.memory_type)


# --------------------------------------------------------------------------- vta.conv2d


def conv2d(layer: Conv2dLayer, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """int8 NCHW x, int8 OIHW w, int32 b -> int8 NCHW, with int32 wrap-around like the hardware."""
    kh, kw = layer.kernel
    t, left, bottom, right = layer.pads
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (t, bottom), (left, right)))
    oh, ow, s = layer.out_height, layer.out_width, layer.stride
    acc = np.zeros((x.shape[0], layer.out_channels, oh, ow), np.int64)
    for ky in range(kh):
        for kx in range(kw):
            patch = xp[:, :, ky : ky + (oh - 1) * s + 1 : s, kx : kx + (ow - 1) * s + 1 : s]
            acc += np.einsum("nchw,oc->nohw", patch, w[:, :, ky, kx].astype(np.int64))
    acc = wrap_int32(acc)
    if b is not None:
        acc = wrap_int32(acc + b.astype(np.int64)[None, :, None, None])
    acc = acc >> layer.shift
    acc = np.maximum(acc, layer.lower_bound())
    acc = np.minimum(acc, layer.clip[1])
    return acc.astype(np.int32).astype(np.int8)
