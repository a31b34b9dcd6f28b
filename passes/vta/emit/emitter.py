"""Code generation for one int8 layer: tiles -> load / compute / store blocks -> a VTA program.

Each tile (rows x full width x output-channel blocks) is reduced over input-channel chunks.
A *step* is one chunk of one tile: its load block brings the input rows (zero-padded on the
fly by the LOAD pad fields) and the weights; its compute block runs the tensorized GEMM — the
(1x16).(16x16)^T intrinsic as a micro-op per (oc block, ic block, ky, kx), with the two
affine loops folding output rows and columns — and, after the last chunk, the ALU epilogue
(bias ADD, SHR, MAX, MIN); the tile's store block writes the int8 result.

Latency hiding (`virtual_thread`): with `vt` threads step k uses SRAM slot k % vt and tile j
accumulator slot j % vt, and the blocks are interleaved in one stream with dependency tokens:

    load k       pops g2l (slot free) if k >= vt         pushes l2g (data ready)
    compute k    pops l2g; on a tile's first chunk pops s2g (accumulator free) if j >= vt
                 pushes g2l if a later load reuses the slot; on the last chunk pushes g2s
    store j      pops g2s                                pushes s2g if a later tile reuses it

Tokens are counts in FIFOs, so the n-th pop on a queue matches its n-th push; the schedule
above pairs them exactly (load k+vt waits for compute k, compute of tile j+vt for store j),
and `hazards.check` proves it on every generated program.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypedDict

from tessel.dialects.vta.config import VtaConfig
from tessel.dialects.vta.cycles import estimate
from tessel.dialects.vta.isa import AluInsn, AluOp, FinishInsn, GemmInsn, Insn, Mem, MemInsn, Uop
from tessel.dialects.vta.layer import INT32_MAX, INT32_MIN, Conv2dLayer
from tessel.dialects.vta.program import Program
from tessel.dialects.vta.reference import run
from tessel.passes.vta.tiling.search import Tiling, TilingError, fits, in_cols, in_rows, ranked


class CodegenError(ValueError):
    pass


@dataclass(frozen=True)
class Step:
    tile: int
    chunk: int
    chunks: int
    oc0: int  # first output-channel block
    toc: int
    oh0: int
    th: int
    ic0: int  # first input-channel block
    tic: int


def steps(layer: Conv2dLayer, cfg: VtaConfig, t: Tiling) -> list[Step]:
    ocb, icb, oh = layer.out_channels // cfg.block, layer.in_channels // cfg.block, layer.out_height
    out: list[Step] = []
    tile = 0
    for oc0 in range(0, ocb, t.toc):
        for oh0 in range(0, oh, t.th):
            chunks = math.ceil(icb / t.tic)
            for c, ic0 in enumerate(range(0, icb, t.tic)):
                out.append(
                    Step(
                        tile,
                        c,
                        chunks,
                        oc0,
                        min(t.toc, ocb - oc0),
                        oh0,
                        min(t.th, oh - oh0),
                        ic0,
                        min(t.tic, icb - ic0),
                    )
                )
            tile += 1
    return out


class _Kernels:
    """Micro-op kernels, each stored once in the table and loaded once (the uop cache)."""

    def __init__(self, prog: Program):
        self.prog = prog
        self.ranges: dict[tuple[object, ...], tuple[int, int]] = {}

    def get(self, key: tuple[object, ...], make: Callable[[], list[Uop]]) -> tuple[int, int]:
        """The (begin, end) of the kernel `key` in the table, made by `make` the first time."""
        if key not in self.ranges:
            uops: list[Uop] = make()
            bgn = len(self.prog.uops)
            self.prog.uops.extend(uops)
            self.ranges[key] = (bgn, len(self.prog.uops))
        return self.ranges[key]


def compile_layer(
    layer: Conv2dLayer, cfg: VtaConfig, vt: int = 2, tiling: Tiling | None = None, candidates: int = 12
) -> Program:
    """The VTA program for `layer`, reading tensors `input`, `weight`, `bias`, writing `output`."""
    return compile_layer_with_tiling(layer, cfg, vt, tiling, candidates)[0]


def compile_layer_with_tiling(
    layer: Conv2dLayer, cfg: VtaConfig, vt: int = 2, tiling: Tiling | None = None, candidates: int = 12
) -> tuple[Program, Tiling]:
    """The VTA program for `layer` and the tiling it was generated with.

    Without a given tiling, the `candidates` best by the analytic cost are each generated and
    timed by the cycle model on their schedule (no data moves, milliseconds each), and the
    fastest is kept: the analytic cost cannot see token stalls, the model can.
    """
    if vt not in (1, 2, 4):
        raise CodegenError(f"virtual threads must be 1, 2 or 4, got {vt}")
    why = layer.why_not_vta(cfg.block)
    if why:
        raise CodegenError(f"layer {layer.name} does not fit VTA: {why}")
    if tiling is None:
        try:
            options = ranked(layer, cfg, vt)[:candidates]
        except TilingError as e:
            raise CodegenError(str(e)) from None
        timed: list[tuple[int, int, Program, Tiling]] = []
        for i, t in enumerate(options):
            try:
                prog = _generate(layer, cfg, vt, t)
            except CodegenError:
                continue  # the micro-op estimate of `fits` was optimistic for this one
            timed.append((modeled_cycles(prog), i, prog, t))
        if not timed:
            raise CodegenError(f"layer {layer.name}: no tiling fits the micro-op buffer")
        _, _, best, chosen = min(timed, key=lambda c: c[:2])
        return best, chosen
    if tiling.vt != vt:
        raise CodegenError(f"layer {layer.name}: the tiling is for {tiling.vt} virtual threads, not {vt}")
    if (err := fits(layer, cfg, tiling)) is not None:
        raise CodegenError(f"layer {layer.name}: tiling {tiling.describe()} does not fit: {err}")
    return _generate(layer, cfg, vt, tiling), tiling


def modeled_cycles(prog: Program) -> int:
    """The cycle model's time for the program's schedule (tokens only, no data moved)."""
    return estimate(prog, run(prog, prog.dram(), execute=False))[0].cycles


def _generate(layer: Conv2dLayer, cfg: VtaConfig, vt: int, t: Tiling) -> Program:
    if (err := fits(layer, cfg, t)) is not None:
        raise CodegenError(f"layer {layer.name}: tiling {t.describe()} does not fit: {err}")
    return _Emitter(layer, cfg, vt, t).program()


@dataclass
class _Slots:
    """Where step k's data lives: its thread's share of each SRAM."""

    inp: int
    wgt: int
    acc: int
    bias: int
    rows: int  # input rows the step loads


class _Emitter:
    """The instruction stream of one layer: per step a load, a compute and (after a tile's
    last chunk) a store block, then the dependency tokens between them."""

    def __init__(self, layer: Conv2dLayer, cfg: VtaConfig, vt: int, t: Tiling):
        self.layer, self.cfg, self.vt, self.t = layer, cfg, vt, t
        blk = cfg.block
        self.icb, self.ocb = layer.in_channels // blk, layer.out_channels // blk
        self.prog = Program(cfg)
        self.x = self.prog.alloc("input", (self.icb, layer.height, layer.width, blk), "int8")
        self.w = self.prog.alloc("weight", (self.ocb, self.icb, *layer.kernel, blk, blk), "int8")
        self.b = self.prog.alloc("bias", (self.ocb, blk), "int32") if layer.bias else None
        self.y = self.prog.alloc("output", (self.ocb, layer.out_height, layer.out_width, blk), "int8")
        self.kernels = _Kernels(self.prog)
        self.ow, self.s, self.wp = layer.out_width, layer.stride, in_cols(layer)
        self.resident: dict[int, tuple[int, int, int, int]] = {}  # slot -> the weights it holds

    def program(self) -> Program:
        plan = steps(self.layer, self.cfg, self.t)
        tiles = plan[-1].tile + 1
        share = {
            "inp": self.cfg.inp_depth // self.vt,
            "wgt": self.cfg.wgt_depth // self.vt,
            "acc": self.cfg.acc_depth // self.vt,
        }
        body: list[Insn] = []
        for k, st in enumerate(plan):
            si, sa = k % self.vt, st.tile % self.vt
            acc0 = sa * share["acc"]
            sl = _Slots(
                si * share["inp"], si * share["wgt"], acc0, acc0 + st.toc * st.th * self.ow, in_rows(self.layer, st.th)
            )
            first, last = st.chunk == 0, st.chunk == st.chunks - 1
            loads, comp = self.load_block(st, sl, si), self.compute_block(st, sl, first, last)
            stores = self.store_block(st, sl) if last else []
            # dependency tokens (see the module docstring)
            loads[0] = replace(loads[0], pop_next=k >= self.vt)
            loads[-1] = replace(loads[-1], push_next=True)
            comp[0] = replace(comp[0], pop_prev=True, pop_next=first and st.tile >= self.vt)
            comp[-1] = replace(comp[-1], push_prev=k + self.vt < len(plan), push_next=last)
            if stores:
                stores[0] = replace(stores[0], pop_prev=True)
                stores[-1] = replace(stores[-1], push_prev=st.tile + self.vt < tiles)
            body += loads + comp + stores
        prog = self.prog
        table = prog.place_uops()
        if len(prog.uops) > self.cfg.uop_depth:
            raise CodegenError(
                f"layer {self.layer.name}: the micro-op kernels need {len(prog.uops)} entries, the buffer holds {self.cfg.uop_depth}"
            )
        # the whole micro-op table once, at its own indices (the kernels' uop_bgn/uop_end)
        n = len(prog.uops)
        prog.insns = [
            MemInsn(memory_type=Mem.UOP, sram_base=0, dram_base=table.base(4), y_size=1, x_size=n, x_stride=n),
            *body,
            FinishInsn(),
        ]
        prog.notes.append(f"{self.layer.name}: {self.t.describe()}, {len(plan)} steps, {tiles} tiles, {n} micro-ops")
        return prog

    def load_block(self, st: Step, sl: _Slots, si: int) -> list[Insn]:
        """The input rows of each channel block, padded on the fly; the weights unless resident."""
        layer, cfg = self.layer, self.cfg
        kh, kw = layer.kernel
        loads: list[Insn] = []
        r0 = st.oh0 * self.s - layer.pads[0]
        top, bottom = max(0, -r0), max(0, r0 + sl.rows - layer.height)
        for i in range(st.tic):
            loads.append(
                MemInsn(
                    memory_type=Mem.INP,
                    sram_base=sl.inp + i * sl.rows * self.wp,
                    dram_base=self.x.base(cfg.inp_elem_bytes)
                    + ((st.ic0 + i) * layer.height + max(r0, 0)) * layer.width,
                    y_size=sl.rows - top - bottom,
                    x_size=layer.width,
                    x_stride=layer.width,
                    y_pad_0=top,
                    y_pad_1=bottom,
                    x_pad_0=layer.pads[1],
                    x_pad_1=layer.pads[3],
                )
            )
        key = (st.oc0, st.toc, st.ic0, st.tic)
        if self.resident.get(si) != key:
            self.resident[si] = key
            loads.append(
                MemInsn(
                    memory_type=Mem.WGT,
                    sram_base=sl.wgt,
                    dram_base=self.w.base(cfg.wgt_elem_bytes) + (st.oc0 * self.icb + st.ic0) * kh * kw,
                    y_size=st.toc,
                    x_size=st.tic * kh * kw,
                    x_stride=self.icb * kh * kw,
                )
            )
        return loads

    def compute_block(self, st: Step, sl: _Slots, first: bool, last: bool) -> list[Insn]:
        ow = self.ow
        comp: list[Insn] = []
        loops = _Loops(iter_out=st.th, iter_in=ow, dst_factor_out=ow, dst_factor_in=1)
        if first:
            if self.b is not None:
                comp.append(
                    MemInsn(
                        memory_type=Mem.ACC,
                        sram_base=sl.bias,
                        dram_base=self.b.base(self.cfg.acc_elem_bytes) + st.oc0,
                        y_size=1,
                        x_size=st.toc,
                        x_stride=st.toc,
                    )
                )
            bgn, end = self.kernels.get(
                ("tile", sl.acc, st.toc, st.th), lambda: [Uop(dst=sl.acc + o * st.th * ow) for o in range(st.toc)]
            )
            comp.append(GemmInsn(reset=True, uop_bgn=bgn, uop_end=end, **loops))
        comp += self.gemm(st, sl)
        if last:
            comp += _epilogue(self.layer, self.kernels, sl.acc, sl.bias, st, ow, loops)
        return comp

    def gemm(self, st: Step, sl: _Slots) -> list[Insn]:
        """The tensorized reduction. The micro-ops walk the step's outputs (kx, row, column,
        channel block; the block innermost) and the two affine loops walk the reduction
        (input-channel block, ky): an accumulator is updated again only after all the step's
        other outputs, which the GEMM pipeline (II=1, read-modify-write of ACC) requires. A
        step with fewer outputs than the pipeline is deep gets one GEMM per reduction term
        instead (the pipeline drains between instructions)."""
        kh, kw = self.layer.kernel
        ow, s, wp, rows = self.ow, self.s, self.wp, sl.rows
        if st.toc * st.th * ow >= self.cfg.timing.pipeline_depth:

            def walk() -> list[Uop]:
                return [
                    Uop(
                        dst=sl.acc + (o * st.th + r) * ow + c,
                        src=sl.inp + r * s * wp + c * s + kx,
                        wgt=sl.wgt + o * st.tic * kh * kw + kx,
                    )
                    for kx in range(kw)
                    for r in range(st.th)
                    for c in range(ow)
                    for o in range(st.toc)
                ]

            bgn, end = self.kernels.get(("gemm", sl.acc, sl.inp, sl.wgt, st.toc, st.tic, st.th), walk)
            return [
                GemmInsn(
                    uop_bgn=bgn,
                    uop_end=end,
                    iter_out=st.tic,
                    iter_in=kh,
                    src_factor_out=rows * wp,
                    src_factor_in=wp,
                    wgt_factor_out=kh * kw,
                    wgt_factor_in=kw,
                )
            ]
        out: list[Insn] = []
        for i in range(st.tic):
            for ky in range(kh):
                for kx in range(kw):

                    def term(i: int = i, ky: int = ky, kx: int = kx) -> list[Uop]:
                        return [
                            Uop(
                                dst=sl.acc + (o * st.th + r) * ow + c,
                                src=sl.inp + (i * rows + r * s + ky) * wp + c * s + kx,
                                wgt=sl.wgt + ((o * st.tic + i) * kh + ky) * kw + kx,
                            )
                            for r in range(st.th)
                            for c in range(ow)
                            for o in range(st.toc)
                        ]

                    bgn, end = self.kernels.get(
                        ("term", sl.acc, sl.inp, sl.wgt, st.toc, st.tic, st.th, i, ky, kx), term
                    )
                    out.append(GemmInsn(uop_bgn=bgn, uop_end=end))
        return out

    def store_block(self, st: Step, sl: _Slots) -> list[Insn]:
        ow, oh = self.ow, self.layer.out_height
        out0 = self.y.base(self.cfg.out_elem_bytes)
        if st.th == oh:  # whole images: the channel blocks are contiguous
            return [
                MemInsn(
                    store=True,
                    memory_type=Mem.OUT,
                    sram_base=sl.acc,
                    dram_base=out0 + st.oc0 * oh * ow,
                    y_size=st.toc * st.th,
                    x_size=ow,
                    x_stride=ow,
                )
            ]
        return [
            MemInsn(
                store=True,
                memory_type=Mem.OUT,
                sram_base=sl.acc + o * st.th * ow,
                dram_base=out0 + ((st.oc0 + o) * oh + st.oh0) * ow,
                y_size=st.th,
                x_size=ow,
                x_stride=ow,
            )
            for o in range(st.toc)
        ]


class _Loops(TypedDict):
    """The two affine loops of the epilogue and the accumulator reset: rows x columns of a tile."""

    iter_out: int
    iter_in: int
    dst_factor_out: int
    dst_factor_in: int


def _epilogue(
    layer: Conv2dLayer, kernels: _Kernels, acc0: int, bias0: int, st: Step, ow: int, loops: _Loops
) -> list[Insn]:
    """Bias, requantizing shift, ReLU + clip on the ALU; the STORE then truncates to int8."""
    out: list[Insn] = []
    th = st.th
    plain = kernels.get(("tile", acc0, st.toc, th), lambda: [Uop(dst=acc0 + o * th * ow) for o in range(st.toc)])
    if layer.bias:
        bgn, end = kernels.get(
            ("bias", acc0, bias0, st.toc, th),
            lambda: [Uop(dst=acc0 + o * th * ow, src=bias0 + o) for o in range(st.toc)],
        )
        out.append(AluInsn(alu_opcode=AluOp.ADD, uop_bgn=bgn, uop_end=end, **loops))
    if layer.shift:
        out.append(
            AluInsn(alu_opcode=AluOp.SHR, use_imm=True, imm=layer.shift, uop_bgn=plain[0], uop_end=plain[1], **loops)
        )
    lo, hi = layer.lower_bound(), layer.clip[1]
    if lo != INT32_MIN:
        out.append(AluInsn(alu_opcode=AluOp.MAX, use_imm=True, imm=lo, uop_bgn=plain[0], uop_end=plain[1], **loops))
    if hi != INT32_MAX:
        out.append(AluInsn(alu_opcode=AluOp.MIN, use_imm=True, imm=hi, uop_bgn=plain[0], uop_end=plain[1], **loops))
    return out
