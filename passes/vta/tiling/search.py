"""Tile sizes for a layer on VTA: what fits each thread's share of the SRAMs, chosen by an
analytic cost that knows about latency hiding.

A tile is `th` output rows x the full output width x `toc` output-channel blocks; its input
channels are reduced in chunks of `tic` blocks (one load + GEMM step per chunk). With `vt`
virtual threads every buffer is split into `vt` equal slots (double buffering for vt=2), so a
step must fit one slot. The cost charges each step max(compute, transfer) when vt > 1 (loads
overlap the other thread's GEMMs) and their sum when vt = 1, which is what the cycle model
later measures; the candidates are few (powers-of-two channel chunks x row counts), so we
enumerate them all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tessel.dialects.vta.config import VtaConfig
from tessel.dialects.vta.layer import Conv2dLayer

MAX_ITER = (1 << 14) - 1


@dataclass(frozen=True)
class Tiling:
    th: int  # output rows per tile
    toc: int  # output-channel blocks per tile
    tic: int  # input-channel blocks per reduction step
    vt: int  # virtual threads

    def describe(self) -> str:
        return f"rows={self.th} oc_blocks={self.toc} ic_blocks={self.tic} vthreads={self.vt}"


class TilingError(ValueError):
    pass


def in_rows(layer: Conv2dLayer, th: int) -> int:
    return (th - 1) * layer.stride + layer.kernel[0]


def in_cols(layer: Conv2dLayer) -> int:
    return layer.pads[1] + layer.width + layer.pads[3]


def fits(layer: Conv2dLayer, cfg: VtaConfig, t: Tiling) -> str | None:
    """None if the tiling fits one thread's slot of every buffer, else what overflows."""
    kh, kw = layer.kernel
    ow = layer.out_width
    need = {
        "inp": t.tic * in_rows(layer, t.th) * in_cols(layer),
        "wgt": t.toc * t.tic * kh * kw,
        "acc": t.toc * t.th * ow + t.toc,
    }
    have = {"inp": cfg.inp_depth // t.vt, "wgt": cfg.wgt_depth // t.vt, "acc": cfg.acc_depth // t.vt}
    for buf, n in need.items():
        if n > have[buf]:
            return f"{buf} needs {n} entries, a thread's slot holds {have[buf]}"
    # micro-op kernels per thread slot: the GEMM walk (kw x rows x columns x blocks) and the
    # epilogue's, twice over for a shorter last tile
    chunks = math.ceil(layer.in_channels // cfg.block / t.tic)
    slots = len(
        {(k % t.vt, (k // chunks) % t.vt) for k in range(t.vt * t.vt * chunks)}
    )  # (input, accumulator) slot pairs
    uops = 2 * slots * (kw * t.th * ow * t.toc + 2 * t.toc)
    if uops > cfg.uop_depth:
        return f"the micro-op kernels need about {uops} entries, the buffer holds {cfg.uop_depth}"
    if t.th > MAX_ITER or ow > MAX_ITER:
        return "loop counts exceed the 14-bit iteration fields"
    if layer.stride * in_cols(layer) >= cfg.inp_depth or ow >= cfg.acc_depth:
        return "row strides exceed the index factor fields"
    return None


def cost(layer: Conv2dLayer, cfg: VtaConfig, t: Tiling) -> float:
    """Modeled cycles: per step max(compute, transfer) with latency hiding, else the sum."""
    kh, kw = layer.kernel
    tm = cfg.timing
    ocb, icb = layer.out_channels // cfg.block, layer.in_channels // cfg.block
    oh, ow = layer.out_height, layer.out_width
    row_tiles, oc_tiles, chunks = math.ceil(oh / t.th), math.ceil(ocb / t.toc), math.ceil(icb / t.tic)
    bus = cfg.bus_bytes
    inp = t.tic * (
        tm.dram_latency
        + in_rows(layer, t.th) * tm.row_overhead
        + in_rows(layer, t.th) * layer.width * cfg.inp_elem_bytes / bus
    )
    wgt = tm.dram_latency + t.toc * tm.row_overhead + t.toc * t.tic * kh * kw * cfg.wgt_elem_bytes / bus
    gemm = t.toc * t.tic * kh * kw * t.th * ow * tm.gemm_ii + tm.pipeline_depth
    alu = 4 * (t.toc * t.th * ow * tm.alu_ii + tm.pipeline_depth)
    store = t.toc * (tm.dram_latency + t.th * tm.row_overhead) + t.toc * t.th * ow * cfg.out_elem_bytes / bus
    # weights stay resident across row tiles when one chunk holds the whole reduction
    wgt_per_step = wgt if chunks > 1 else wgt / max(1, row_tiles / t.vt)
    load = inp + wgt_per_step
    compute = gemm + alu / chunks
    steps = row_tiles * oc_tiles * chunks
    if t.vt == 1:
        return steps * (load + compute) + row_tiles * oc_tiles * store
    return steps * max(load, compute, store / chunks) + load + store


def _powers(n: int) -> list[int]:
    out = [1 << i for i in range(n.bit_length()) if (1 << i) <= n]
    return sorted(set(out + [n]))


def ranked(layer: Conv2dLayer, cfg: VtaConfig, vt: int) -> list[Tiling]:
    """Every tiling that fits, cheapest first by the analytic cost."""
    ocb, icb = layer.out_channels // cfg.block, layer.in_channels // cfg.block
    scored: list[tuple[float, int, Tiling]] = []
    for toc in _powers(ocb):
        for tic in _powers(icb):
            for th in range(1, layer.out_height + 1):
                t = Tiling(th, toc, tic, vt)
                if fits(layer, cfg, t) is None:
                    scored.append((cost(layer, cfg, t), len(scored), t))
    if not scored:
        smallest = Tiling(1, 1, 1, vt)
        raise TilingError(
            f"layer {layer.name}: even one output row of one channel block does not fit ({fits(layer, cfg, smallest)})"
        )
    return [t for _, _, t in sorted(scored)]


def choose(layer: Conv2dLayer, cfg: VtaConfig, vt: int) -> Tiling:
    return ranked(layer, cfg, vt)[0]
