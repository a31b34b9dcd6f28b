"""Cache tiles: which loops of a register-tiled stage go outside which, and where its
reduction goes in chunks, so that the operands reused across tiles stay in cache.

The register tile is chosen for the vector unit (register_tile.py); what stays in cache
between reuses depends on the core's L1 and L2, which differ across the x86-64 server
cores the code must be fast on: a Zen 4 has 32 KB and 1 MB, a Sapphire/Emerald Rapids
48 KB and 2 MB, a Zen 2/3 32 KB and 512 KB. The CPU target reads them from the machine
(targets/cpu/cpu_target.py: the kernel's description of its caches, or a named CPU's
table) and kernel-to-loops takes them as options (`l1_bytes`, `l2_bytes`); the defaults
are a Zen 4's, the core the fractions below were measured on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import TypedAttribute

from tessel.dialects import kernel
from tessel.ir.diagnostics import TesselError
from tessel.passes.kernel.loops.affine_analysis import affine_reads, element_bytes
from tessel.passes.kernel.loops.loop import Loop

L1_BYTES = 32 * 1024  # a Zen 4's L1 data cache (every server core's since Haswell, or more)
L2_BYTES = 1024 * 1024  # a Zen 4's L2 (Skylake-SP 1 MB, Sapphire Rapids 2 MB, Zen 3 512 KB)
# The tile order's threshold was 256 KB on every core before it followed the L2, and was
# measured there on a Zen 3 (512 KB L2), Zen 4 and Zen 5 (1 MB): a smaller L2 keeps it
# (a Zen 3's quarter, 128 KB, would reorder 73 of the zoo's 1817 stages, unmeasured); a
# larger one (Sapphire/Emerald Rapids' 2 MB: 512 KB) raises it.
REUSE_FLOOR = 256 * 1024


@dataclass(frozen=True)
class Caches:
    """A core's private data caches, in bytes."""

    l1_bytes: int = L1_BYTES
    l2_bytes: int = L2_BYTES

    def __post_init__(self) -> None:
        for name, value in (("l1_bytes", self.l1_bytes), ("l2_bytes", self.l2_bytes)):
            if value < 4096:
                raise TesselError(f"kernel-to-loops{{{name}={value}}}: a cache size must be at least 4096 bytes")
        if self.l2_bytes < self.l1_bytes:
            raise TesselError(
                f"kernel-to-loops{{l1_bytes={self.l1_bytes} l2_bytes={self.l2_bytes}}}: the L2 is smaller than the L1"
            )

    @property
    def split_bytes(self) -> int:
        """What one register tile may read over a chunk of its reduction (split_reduction):
        half of the L1, the other half for the outputs and what the next chunk brings in."""
        return self.l1_bytes // 2

    @property
    def reuse_bytes(self) -> int:
        """An operand this size stays in L2 between its reuses (order_tiles): a quarter of
        it, the rest for the other operand streaming through, the outputs, and what the
        prefetchers bring in; at least REUSE_FLOOR."""
        return max(self.l2_bytes // 4, REUSE_FLOOR)


ZEN4 = Caches()  # the defaults: the caches the fractions above were measured with


def split_reduction(
    op: kernel.ComputeOp,
    outer: list[Loop],
    reduce: list[Loop],
    tile: dict[int, int],
    notes: list[str],
    caches: Caches,
) -> tuple[list[Loop], list[Loop]]:
    """Split-K: where one tile's reduction reads more than the caches' split_bytes (a 1x1 convolution
    over 1024 channels: 56 KB of pixels and 32 KB of weights per tile, streamed from L2 for
    every tile), the outermost reduction axis goes in chunks that fit, the chunk loop
    outside every tile: each chunk's weights stay in L1 across the tiles and the output
    holds the partial sums (loop_builder.py). A Zen 3 ran a 14x14x1024 -> 1024 one 1.4x
    faster with chunks of 64 channels."""
    if not reduce or op.combiner != "add" or not isinstance(op.init, TypedAttribute):
        return outer, reduce
    out = op.out.type
    if not isinstance(out, MemRefType) or out.element_type != op.init.get_type():
        return outer, reduce
    k = op.spatial_count
    reads, exact = affine_reads(op)
    if not exact:
        return outer, reduce
    first = reduce[0].axis
    n = op.domain[first]
    # an operand that no other tile reads again (a Winograd product's weights, one tile of
    # rows per transformed position) streams through once whatever the chunks: only the
    # reused ones must stay in L1
    reused = [r for r in reads if math.prod(l.extent for l in outer if l.axis < k and l.axis not in r[0]) > 1]

    def footprint(chunk: int) -> int:
        total = 0
        for axes, _, element in reused:
            points = 1
            for d in axes:
                points *= chunk if d == first else op.domain[d] if d >= k else tile.get(d, 1)
            total += points * element
        return total

    if n == 1 or footprint(n) <= caches.split_bytes:
        return outer, reduce
    chunk = max((c for c in range(1, n) if n % c == 0 and footprint(c) <= caches.split_bytes), default=1)
    notes.append(f"reduction {op.axis_names[first]} in chunks of {chunk}")
    return [Loop(first, n // chunk, chunk), *outer], [reduce[0].but(extent=chunk), *reduce[1:]]


def _operand_bytes(op: kernel.ComputeOp, v: int, col_axis: int) -> tuple[int, int, list[int]]:
    """(bytes the broadcast loads read, bytes the vector loads read, the batch axes) per
    point of the batch axes: spatial axes besides the tile's that both kinds of load read
    (an attention's heads), whose loops stay outermost."""
    reads, _ = affine_reads(op)
    vector = [(u, b) for u, b, _ in reads if v in u or col_axis in u]
    broadcast = [(u, b) for u, b, _ in reads if not (v in u or col_axis in u)]
    batch = [
        d
        for d in range(op.spatial_count)
        if op.domain[d] > 1 and any(d in u for u, _ in vector) and any(d in u for u, _ in broadcast)
    ]
    per = math.prod(op.domain[d] for d in batch)
    return sum(b for _, b in broadcast) // per, sum(b for _, b in vector) // per, batch


PAGE = 4096  # what a hardware prefetcher follows a stream within


def _streams_rows(
    op: kernel.ComputeOp,
    v: int,
    col_axis: int,
    outer: list[Loop],
    rows: list[int],
    batch: list[int],
    vectors: int,
    caches: Caches,
) -> bool:
    """Should the row tiles go outside for the output's sake (order_tiles): the columns
    are vectors along the output's innermost axis, its rows a page or more apart, more of
    it per batch point than the L2 holds (each store a miss), and the vector operand stays
    in half the L2 while the rows sweep it."""
    k = op.spatial_count
    out = op.out.type
    if col_axis != v or v != k - 1 or vectors > caches.l2_bytes // 2 or not isinstance(out, MemRefType):
        return False
    if list(out.get_shape()) != list(op.domain[:k]):
        return False  # (an output not indexed by the axes themselves)
    element = element_bytes(out)
    innermost_row = max(outer[i].axis for i in rows)
    stride = element * math.prod(op.domain[innermost_row + 1 : k])
    written = element * math.prod(op.domain[:k]) // math.prod(op.domain[d] for d in batch)
    return stride >= PAGE and written > caches.l2_bytes


def order_tiles(op: kernel.ComputeOp, outer: list[Loop], v: int, col_axis: int, caches: Caches) -> list[Loop]:
    """Which of the tile loops go outside: the column tiles (each reuses its vector operand,
    the weights, across all the row tiles inside) or the row tiles (each reuses its
    broadcast operand, the input pixels, across all column tiles). The operand that fits in
    the caches' reuse_bytes is the one re-read from cache; where both fit, the columns go outside (the
    threads split the weights); where neither does, the one re-read less often wins. GPT-2's 32 tokens x 3072 outputs:
    column tiles outside (the tokens stay cached, the weights stream once, the threads split
    the weights); a 28x28x512 -> 128 1x1 convolution: pixels outside (its 1.6 MB input was
    streamed once per pair of output blocks); a 14x14x256 3x3 one keeps its channel blocks
    outside (2.4 MB of weights, 200 KB of input).

    A matrix product whose row and column tiles together write more than the L2 (its
    columns the vectors of its rows) puts the row tiles outside where the vector operand
    stays in half the L2: with the column tiles outside, each tile writes a few vectors into
    each of its rows, every row's line in another page, which no prefetcher follows; with
    them inside, every row is written front to back. Whisper's attention scores, 6 heads x
    1500 x 1500 (9 MB a head, keys 384 KB a head): 11.46 ms with the columns outside, 8.7
    with the rows (tessel-tune's measurements, Zen 4). A blocked convolution's tile already
    writes whole runs of pixels per channel block, and keeps the order above."""
    broadcast, vectors, batch = _operand_bytes(op, v, col_axis)
    cols = [i for i, l in enumerate(outer) if l.axis in (v, col_axis) and l.extent > 1]
    rows = [i for i, l in enumerate(outer) if l.axis not in (v, col_axis, *batch) and l.extent > 1]
    if not cols or not rows or not broadcast or not vectors:
        return outer
    fits_broadcast, fits_vectors = broadcast <= caches.reuse_bytes, vectors <= caches.reuse_bytes
    if fits_broadcast and fits_vectors:
        cols_outside = True  # (either is reused from cache; the threads split the columns)
    elif fits_broadcast == fits_vectors:
        row_tiles = math.prod(outer[i].extent for i in rows)
        col_tiles = math.prod(outer[i].extent for i in cols)
        cols_outside = col_tiles * broadcast <= row_tiles * vectors
    else:
        cols_outside = fits_broadcast
    if cols_outside and _streams_rows(op, v, col_axis, outer, rows, batch, vectors, caches):
        cols_outside = False
    moved = [outer[i] for i in cols]
    rest = [l for i, l in enumerate(outer) if i not in cols]
    at = rest.index(outer[rows[0]]) if cols_outside else rest.index(outer[rows[-1]]) + 1
    return rest[:at] + moved + rest[at:]
