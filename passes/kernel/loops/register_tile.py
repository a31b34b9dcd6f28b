"""The register tile of a reduction stage, chosen from the vector unit it runs on.

A reduction's default schedule keeps a tile of `rows x cols` accumulator vectors in
registers across the reduction loops: `rows` points of one spatial axis (each step reads
one element there and broadcasts it) by `cols` vectors (each step loads one vector per
column: the next vectors of the vector axis, or the vectors of `cols` points of a second
axis, e.g. four output-channel blocks of an NCHW16c convolution). One step of the
reduction is then `rows * cols` FMAs on `rows + cols` loads. Three limits decide its speed
(shared/research/llvmlite_gemm.md; MLAS's SGEMM and NCHWc kernels are 6x4 and 6x2
vectors on AVX-512 and AVX2):

- the FMA units: `fma_per_cycle` FMAs issue per cycle;
- the load ports: `loads_per_cycle` loads per cycle (a tile of 14 x 1 vectors reads 15
  values for 14 FMAs, so on a 2-load core it waits for loads, not FMAs);
- the latency: each accumulator's FMA waits `fma_latency` cycles for its previous one, so
  fewer than latency x ports accumulators leave the units idle.

and one fits it: the accumulators, the column vectors and two broadcast temporaries must
fit the vector registers (32 with AVX-512, 16 with AVX/AVX2, SSE): a spilled tile costs
more than a smaller one (ResNet-18 ran 1.8x slower on a Zen 3 with 28 ymm accumulators).

`choose` minimizes the estimated cycles of all tiles covering the stage: tiles that do
not divide their axis are clamped (the last overlaps the one before), so a row count that
wastes a third of the last tile loses to one that divides. The FMA and load rates are
those of every AVX-512 server core Tessel is measured on (Zen 4/5: two 512-bit loads and,
on Zen 5, two 512-bit FMAs per cycle; Sapphire/Emerald Rapids: two of each, latency 4);
they change which tile wins only between near-equal ones. The register count is what
changes the tile between CPUs, and it follows from the vector width the target has.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_ROWS = 14  # rows of a tile: past it the broadcast loads alone fill the load ports
MAX_COLS = 8


@dataclass(frozen=True)
class VectorUnit:
    """What the register tile's choice reads of a CPU's vector unit."""

    registers: int
    fma_per_cycle: int = 2
    loads_per_cycle: int = 2
    fma_latency: int = 4
    # Without AVX-512 a broadcast operand is its own instruction (vbroadcastss), which on
    # the AVX2 server cores (Zen 2/3) issues on the vector pipes beside the FMAs (three of
    # them take either): a 14 x 1 tile's 14 broadcasts per 14 FMAs held a Zen 3 to 60-70%
    # of onnxruntime's 1x1 convolutions, a 2 x 4 tile's 2 per 8 to 95%. AVX-512 folds the
    # broadcast into the FMA ({1to16}).
    broadcast_pipes: int = 0

    @staticmethod
    def for_bits(vector_bits: int) -> VectorUnit:
        """x86-64's vector registers: 32 zmm with AVX-512, else 16 (ymm or xmm), whose
        broadcasts take a vector pipe."""
        return VectorUnit(32) if vector_bits >= 512 else VectorUnit(16, broadcast_pipes=3)

    def fits(self, rows: int, cols: int) -> bool:
        """Do rows x cols accumulators, the cols column vectors and the broadcasts fit? (One
        column: LLVM folds the broadcast into the FMA's memory operand, no register.)"""
        temporaries = 0 if cols == 1 else 2
        return rows * cols + cols + temporaries <= self.registers

    def step_cycles(self, rows: int, cols: int) -> float:
        """Cycles of one reduction step of the tile: the slowest of FMA issue, loads and the
        accumulators' latency."""
        fmas = rows * cols
        issue = fmas / self.fma_per_cycle
        if self.broadcast_pipes:
            issue = max(issue, (fmas + rows) / self.broadcast_pipes)
        return max(issue, (rows + cols) / self.loads_per_cycle, float(self.fma_latency))

    def cycles(self, rows: int, cols: int, row_extent: int, col_vectors: int) -> float:
        """Estimated cycles of one reduction step over all the tiles covering row_extent x
        col_vectors."""
        return -(-row_extent // rows) * (col_vectors // cols) * self.step_cycles(rows, cols)

    def choose(self, row_extent: int, col_extent: int, group: int = 1) -> tuple[int, int]:
        """(rows, cols) of the tile over a `row_extent` axis and `col_extent` columns, each
        column `group` vectors wide (cols, in vectors, is a multiple of `group` whose
        quotient divides col_extent; rows may not divide row_extent, the last tile is
        clamped)."""
        best: tuple[float, int, int, int, int] | None = None
        for cols in (c * group for c in range(1, min(MAX_COLS // group, col_extent) + 1) if col_extent % c == 0):
            for rows in range(1, min(MAX_ROWS, row_extent) + 1):
                if not self.fits(rows, cols):
                    break
                key = (self.cycles(rows, cols, row_extent, col_extent * group), -rows * cols, cols, rows, cols)
                if best is None or key < best:
                    best = key
        assert best is not None, "a 1 x 1 tile always fits"
        return best[3], best[4]
