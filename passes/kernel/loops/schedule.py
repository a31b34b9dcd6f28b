"""How one kernel.compute stage becomes loops: the schedule, separate from the algorithm.

A stage's axes (spatial, then reduction) are split into loops; each loop covers part of
one axis (`axis value = sum over its loops of stride * loop var`), has a trip count, and a
kind: serial, parallel (the stage's launch range, outermost only), vector (innermost,
becomes SIMD lanes) or unroll (copied out in the IR, so that tiles have constant indices).
`acc_at` says where the accumulator tile of a reduction lives: the spatial loops after it
form a register tile, accumulated across the reduction loops that come next (TVM's
cache_write + compute_at). Splits that do not divide their axis leave tails, which the
loop builder guards.

This is the part of TVM's schedule primitives the CPU path needs by default (split,
reorder, vectorize, unroll, parallel, cache_write); the `sched` dialect writes the same
thing as text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import AffineMapAttr, IntAttr, MemRefType
from xdsl.ir import TypedAttribute
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineExpr

from tessel.dialects import kernel
from tessel.passes.kernel.loops.affine_analysis import affine_reads, axis_map
from tessel.passes.kernel.loops.cache_tiles import ZEN4, Caches, order_tiles, split_reduction
from tessel.passes.kernel.loops.loop import GPU_KINDS, Loop
from tessel.passes.kernel.loops.register_tile import VectorUnit
from tessel.passes.kernel.loops.transpose_tile import transposed_tiles

MAX_THREADS = 1024  # threads per block (every NVIDIA GPU since Fermi)
MAX_GRID = (2**31 - 1, 65535, 65535)  # blocks per grid dimension


@dataclass
class StageSchedule:
    loops: list[Loop]
    acc_at: int | None = None  # reductions: loops[:acc_at] are outside the accumulator tile
    notes: list[str] = field(default_factory=list)
    # gpu: at the start of each iteration of loops[shared_at] (a reduction loop), the block's
    # threads copy the tiles of the inputs the loops inside it read into shared memory
    # (TVM's cache_read to "shared" + compute_at), with a barrier after and at its end
    shared_at: int | None = None

    def validate(self, op: kernel.ComputeOp) -> None:
        extents = op.domain
        k = op.spatial_count
        covered: dict[int, list[Loop]] = {}
        for loop in self.loops:
            covered.setdefault(loop.axis, []).append(loop)
        for axis, n in enumerate(extents):
            loops = sorted(covered.get(axis, []), key=lambda l: -l.stride)
            if not loops:
                raise ValueError(f"axis {op.axis_names[axis]} has no loop")
            span = loops[0].extent * loops[0].stride
            if span < n or loops[-1].stride != 1:
                raise ValueError(f"the loops of axis {op.axis_names[axis]} do not cover it")
        for i, loop in enumerate(self.loops):
            earlier = [l for l in self.loops[:i] if l.axis == loop.axis]
            if any(l.stride < loop.stride for l in earlier) and not self.exact(op, loop.axis):
                # (an axis its loops tile exactly has no tails, whose guards need the outer
                # loops first: any order is fine, e.g. a GPU thread loop of stride 1 outside
                # a per-thread tile of stride `threads`, which keeps neighbouring threads on
                # neighbouring elements)
                raise ValueError(f"the loops of axis {op.axis_names[loop.axis]} must nest outer before inner")
            if loop.kind == "parallel" and i != 0:
                raise ValueError("only the outermost loop may be parallel")
            if loop.kind == "vector" and i != len(self.loops) - 1:
                raise ValueError("only the innermost loop may be vectorized")
            if loop.kind == "vector" and loop.axis >= k:
                raise ValueError("a reduction axis cannot be vectorized")
            if loop.kind == "vector" and op.reduce_count and self.acc_at is None:
                raise ValueError(
                    "a reduction stage's vectorized loop accumulates in registers: give the stage a cache_write"
                )
            if loop.clamp:
                same = [l for l in self.loops if l.axis == loop.axis]
                inner = [l for l in same if l is not loop]
                if len(same) != 2 or len(inner) != 1 or inner[0].stride != 1 or inner[0].extent != loop.stride:
                    raise ValueError(
                        f"a clamped loop of axis {op.axis_names[loop.axis]} needs exactly one inner loop of its step"
                    )
                if (
                    loop.axis >= k
                    or extents[loop.axis] < loop.stride
                    or loop.extent != -(-extents[loop.axis] // loop.stride)
                ):
                    raise ValueError(
                        f"a clamped loop must cover spatial axis {op.axis_names[loop.axis]}, at least one step long"
                    )
                if inner[0].kind == "vector" and not _shifts_freely(op, loop.axis):
                    raise ValueError(
                        f"the stage reads axis {op.axis_names[loop.axis]} through a floordiv or mod: its vectors"
                        " must start on whole blocks, and a clamped last vector does not"
                    )
        self._validate_gpu(op)
        if op.reduce_count and self.acc_at is not None:
            inner = self.loops[self.acc_at :]
            seen_spatial = False
            for loop in inner:
                if loop.axis < k:
                    seen_spatial = True
                elif seen_spatial:
                    raise ValueError("inside the accumulator tile, reduction loops come before tile loops")
            outside = [l for l in self.loops[: self.acc_at] if l.axis >= k]
            if outside:
                self._validate_split_reduction(op, outside)

    def _validate_split_reduction(self, op: kernel.ComputeOp, outside: list[Loop]) -> None:
        """Reduction loops outside the accumulator tile (split-K: each pass of them adds a
        chunk of the reduction to the partial sums the output holds, loop_builder.py) need
        partial sums the output can hold and every output element stored by one tile."""
        init = op.init
        out = op.out.type
        if op.combiner != "add":
            raise ValueError(f"reduction loops outside the accumulator tile need an add combiner, not {op.combiner}")
        if (
            not isinstance(init, TypedAttribute)
            or not isinstance(out, MemRefType)
            or out.element_type != init.get_type()
        ):
            raise ValueError("reduction loops outside the accumulator tile need an output of the accumulator's type")
        if any(l.kind != "serial" for l in outside):
            raise ValueError("reduction loops outside the accumulator tile must be serial")
        vec = self.loops[-1] if self.loops and self.loops[-1].kind == "vector" else None
        if vec is not None and any(l.clamp and l.axis == vec.axis for l in self.loops):
            # (a clamped tile of rows stores only the rows it owns; an overlapping last
            # vector would need lane masks for that)
            raise ValueError("reduction loops outside the accumulator tile take no overlapping last vector")
        if vec is not None and (vec.axis != op.spatial_count - 1 or op.domain[vec.axis] % vec.extent):
            raise ValueError(
                "reduction loops outside the accumulator tile need whole vectors along the innermost spatial axis"
            )
        if any(l.kind in GPU_KINDS for l in self.loops):
            raise ValueError("reduction loops outside the accumulator tile are not supported on the gpu target")

    def _validate_gpu(self, op: kernel.ComputeOp) -> None:
        """Loops bound to GPU indices come first (each thread runs the rest), on spatial
        axes only (a reduction across threads would need a combine), one per index."""
        bound = [l for l in self.loops if l.kind in GPU_KINDS]
        if self.shared_at is not None:
            at = self.shared_at
            if not bound:
                raise ValueError("staging through shared memory needs loops bound to GPU indices")
            if (
                not 0 <= at < len(self.loops)
                or self.loops[at].axis < op.spatial_count
                or self.loops[at].kind != "serial"
            ):
                raise ValueError("shared-memory tiles are loaded at a serial reduction loop")
            if any(l.kind == "vector" or l.clamp for l in self.loops):
                raise ValueError("shared-memory tiles take no vector loop and no clamped tiles")
        if not bound:
            return
        for l in bound:
            if l.axis >= op.spatial_count:
                raise ValueError(f"reduction axis {op.axis_names[l.axis]} cannot be bound to a GPU index")
        if any(l.kind not in GPU_KINDS for l in self.loops[: len(bound)]):
            raise ValueError("loops bound to GPU indices must be the outermost ones")
        if any(l.kind == "parallel" for l in self.loops):
            raise ValueError("a GPU stage has no parallel loop: bind loops to GPU indices instead")
        seen = set()
        for l in bound:
            if (l.kind, l.dim) in seen:
                raise ValueError(f"two loops are bound to {gpu_index_name(l.kind, l.dim)}")
            seen.add((l.kind, l.dim))
            if l.kind == "block" and l.extent > MAX_GRID[l.dim]:
                raise ValueError(f"{l.extent} blocks exceed the {MAX_GRID[l.dim]} of {gpu_index_name(l.kind, l.dim)}")
        threads = math.prod(l.extent for l in bound if l.kind == "thread")
        if threads > MAX_THREADS:
            raise ValueError(f"{threads} threads per block exceed {MAX_THREADS}")

    def exact(self, op: kernel.ComputeOp, axis: int) -> bool:
        """The axis's loops tile it exactly: no tails."""
        loops = sorted((l for l in self.loops if l.axis == axis), key=lambda l: -l.stride)
        if not loops or loops[0].extent * loops[0].stride != op.domain[axis] or loops[-1].stride != 1:
            return False
        return all(a.stride == b.extent * b.stride for a, b in zip(loops, loops[1:]))

    def gpu_dims(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """(grid, block) dimensions of a stage with bound loops (1 where nothing is bound)."""
        grid, block = [1, 1, 1], [1, 1, 1]
        for l in self.loops:
            if l.kind == "block":
                grid[l.dim] = l.extent
            elif l.kind == "thread":
                block[l.dim] = l.extent
        return (grid[0], grid[1], grid[2]), (block[0], block[1], block[2])

    @property
    def is_gpu(self) -> bool:
        return any(l.kind in GPU_KINDS for l in self.loops)


def gpu_index_name(kind: str, dim: int) -> str:
    return f"{'blockIdx' if kind == 'block' else 'threadIdx'}.{'xyz'[dim]}"


# --------------------------------------------------------------------------- sketch knobs

Knobs = Mapping[str, object]  # a point of a schedule sketch (tune/space.py, tune/gpu_space.py)


def knob_int(knobs: Knobs, name: str, default: int) -> int:
    value = knobs.get(name, default)
    assert isinstance(value, int), f"knob {name} is {value!r}, not an integer"
    return int(value)


def knob_axis(knobs: Knobs, name: str) -> int | None:
    value = knobs.get(name)
    assert value is None or isinstance(value, int), f"knob {name} is {value!r}, not an axis"
    return value


def knob_order(knobs: Knobs, name: str) -> Sequence[int] | None:
    """A permutation knob: a tuple as sampled, a list as read back from a tuning log."""
    value = knobs.get(name)
    assert value is None or isinstance(value, tuple | list), f"knob {name} is {value!r}, not an order"
    return value


# --------------------------------------------------------------------------- defaults


VECTOR_BITS = 512  # the schedules' vector register when the target's is not given


def vector_width(op: kernel.ComputeOp, vector_bits: int = VECTOR_BITS) -> int:
    """Lanes of one `vector_bits` register (512 on AVX-512, 256 on AVX2) of the output element
    (16 x f32 in 512 bits); of the accumulator for a reduction, whose registers the tile holds
    (an int8 output accumulates in i32)."""
    t = op.out.type
    assert isinstance(t, MemRefType)
    element = op.init.get_type() if op.reduce_count and isinstance(op.init, TypedAttribute) else t.element_type
    bits = getattr(element, "bitwidth", None) or getattr(element, "width", None)
    bits = bits.data if isinstance(bits, IntAttr) else bits
    if not bits or bits == 1:
        return 1
    return max(1, vector_bits // int(bits))


def _shifts_freely(op: kernel.ComputeOp, dim: int) -> bool:
    """May the vectors along axis `dim` start anywhere (an overlapping last vector starts off
    the width's multiples)? Only where every index using `dim` is a sum of multiples of the
    axes: a floordiv or mod by the block (dense_packed's w[n floordiv 16, k, n mod 16]) is
    contiguous over a vector only from an aligned start, and the loads are emitted so.

    The maps are read over the axes (axis_map): parsed from text, the index above is a map
    of symbols, and read by axis number it seemed linear in n, so the tuner's copy of
    dense_packed got overlapping vectors that read the wrong weights (its every candidate
    "wrong", and the recorded default schedule miscompiled ResNet-18's classifier)."""
    blocks = [r.blocks.first for r in op.regions if r.blocks.first is not None]
    for block in blocks:
        for inner in block.walk():
            m = inner.properties.get("map") or inner.attributes.get("map")
            if not isinstance(m, AffineMapAttr):
                if inner.name == "memref.load" or inner.name == "affine.apply":
                    return False  # an index computed as a value
                continue
            amap = axis_map(inner, m.data, block.args)
            if amap is None:
                return False
            if any(dim in e.used_dims() and not _linear(e) for e in amap.results):
                return False
    return True


def _reads_own_output(op: kernel.ComputeOp) -> bool:
    return any(getattr(inner, "memref", None) is op.out for inner in op.walk())


def _linear(e: AffineExpr) -> bool:
    """A sum of multiples of the axes: no floordiv, ceildiv or mod (which MLIR's "pure
    affine" allows by constants)."""
    return all(
        not isinstance(x, AffineBinaryOpExpr)
        or x.kind not in (AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.CeilDiv, AffineBinaryOpKind.Mod)
        for x in e.dfs()
    )


def _pick_width(extent: int, width: int) -> int:
    """The widest power-of-two width <= `width` that divides `extent` (no tail), >= 4."""
    w = width
    while w >= 4:
        if extent % w == 0:
            return w
        w //= 2
    return 1


def default_schedule(op: kernel.ComputeOp, vector_bits: int = VECTOR_BITS, caches: Caches = ZEN4) -> StageSchedule:
    """Parallel outer spatial loop, vectorized innermost spatial axis (or the stage's `lanes`
    axis), and for reductions a register tile of rows of the innermost other spatial axis by
    columns of vectors, its shape chosen for the target's vector unit (register_tile.py).

    `vector_bits` is the target's vector register: it sets the lanes and the register file
    the tile must fit (32 zmm with AVX-512, 16 ymm with AVX2, where 512-bit vectors would be
    pairs of ymm and a 14-row tile of them spilled: ResNet-18 ran 1.8x slower on a Zen 3).
    `caches` are the core's L1 and L2, which order the tiles and chunk the reductions
    (cache_tiles.py)."""
    extents = op.domain
    k = op.spatial_count
    spatial = [Loop(d, extents[d], 1) for d in range(k)]
    reduce = [Loop(d, extents[d], 1) for d in range(k, len(extents))]
    lanes = vector_width(op, vector_bits)
    named = op.lanes_axis
    v = named if named is not None else k - 1  # the vector axis
    width = _pick_width(extents[v], lanes) if k else 1
    # No power-of-two width divides the vector axis (ViT's 197 tokens): vectors anyway, the
    # last one moved back to end at the axis's end (it recomputes a few elements; no stage
    # writes a buffer it reads, tg-plan-memory keeps them apart), not a scalar stage.
    # A narrow divisor (1500 = 4 x 375: whisper's 1500 frames) is worse than full vectors
    # with the last one overlapping: 94 vectors of 16 instead of 375 of 4.
    # a stage that reads its own output (a softmax scaled in place) gets no overlapping
    # vector, which would read elements the one before it already wrote: full vectors with
    # the last one masked instead
    in_place = _reads_own_output(op)
    overlap = bool(k) and v == k - 1 and extents[v] >= 4 and lanes >= 4 and not in_place and _shifts_freely(op, v)
    overlap = overlap and (width == 1 or (width < lanes and -(-extents[v] // lanes) < extents[v] // width))
    if overlap:
        width = min(lanes, 1 << (extents[v].bit_length() - 1))
    elif bool(k) and v == k - 1 and width < lanes <= extents[v] and in_place:
        width = lanes
    total = math.prod(extents[:k])
    notes = []
    if not op.reduce_count:
        loops = list(spatial)
        if width > 1:
            transposed, width = transposed_tiles(op, v, width, overlap)
            last = loops.pop(v)
            steps = Loop(last.axis, -(-last.extent // width), width, clamp=overlap)
            tile = [Loop(last.axis, width, 1, "vector")]
            if transposed is not None:  # a copy contiguous along u: W x W tiles (transpose_tile.py)
                u, clamp = transposed
                loops[u] = Loop(u, -(-extents[u] // width), width, clamp=clamp)
                tile.insert(0, Loop(u, width, 1, "unroll"))
                notes.append(f"transposed {width}x{width} tiles")
            loops += [steps, *tile]
            notes.append(f"vector {width}" + (", last vector overlapping" if overlap else ""))
        return _parallelize(StageSchedule(loops, None, notes), total)
    if width > 1:
        # the rows: the innermost spatial axis outside the vector one that has more than one
        # point (a [197, 1, 384] sequence-first activation tiles its 197 tokens, not the 1)
        others = [d for d in range(k) if d != v]
        rows_axis = max((d for d in others if extents[d] > 1), default=others[-1] if others else None)
        row_extent = extents[rows_axis] if rows_axis is not None else 1
        # the columns: more vectors of the vector axis (a matrix product's N), or, where the
        # vector axis is one vector (an NCHW16c convolution's 16 channels), points of a second
        # axis that the broadcast operand does not read (its output-channel blocks), so one
        # broadcast feeds several FMAs (register_tile.py)
        vectors = -(-extents[v] // width)
        unit = VectorUnit.for_bits(vector_bits)
        second = second_axis(op, v, rows_axis) if vectors == 1 else None
        col_axis = second if second is not None else v
        col_extent = extents[second] if second is not None else 1 if overlap else vectors
        rows, cols = unit.choose(row_extent, col_extent)
        # a block of a few vectors (NCHW16c on AVX2: 2 ymm) makes whole blocks the columns:
        # points of the second axis, each `vectors` wide, so that each broadcast feeds
        # several blocks' FMAs
        group = 1
        blocked = second_axis(op, v, rows_axis) if 1 < vectors <= MAX_GROUP and extents[v] % width == 0 else None
        if blocked is not None:
            b_rows, b_cols = unit.choose(row_extent, extents[blocked], vectors)
            # (the other tile covers one point of the blocked axis: it repeats for each; a
            # tie goes to the blocks, which can take split-K: a 28x28x512 -> 256 1x1
            # convolution ran 0.84x onnxruntime with 4 x 2 vectors, 0.97x with 2 x 2 x 2)
            if unit.cycles(b_rows, b_cols, row_extent, extents[blocked] * vectors) <= extents[blocked] * unit.cycles(
                rows, cols, row_extent, col_extent
            ):
                col_axis, rows, cols, group = blocked, b_rows, b_cols // vectors, vectors
        clamp = rows > 1 and rows_axis is not None and extents[rows_axis] % rows != 0
        outer = []
        for d in range(k):
            if d == v:
                step = cols if col_axis == v else vectors if group > 1 else 1
                outer.append(Loop(d, vectors // step, width * step, clamp=overlap))
            elif d == rows_axis and rows > 1:
                outer.append(Loop(d, -(-extents[d] // rows), rows, clamp=clamp))
            elif d == col_axis and cols > 1:
                outer.append(Loop(d, extents[d] // cols, cols))
            else:
                outer.append(Loop(d, extents[d], 1))
        outer = order_tiles(op, outer, v, col_axis, caches)
        tile = [Loop(rows_axis, rows, 1, "unroll")] if rows > 1 and rows_axis is not None else []
        tile += [Loop(col_axis, cols, width if col_axis == v else 1, "unroll")] if cols > 1 else []
        tile += [Loop(v, group, width, "unroll")] if group > 1 else []
        tile += [Loop(v, width, 1, "vector")]
        shape = f"{rows}x{cols * width}" if col_axis == v else f"{rows}x{cols}x{group * width}"
        notes.append(f"register tile {shape}" + (", last vector overlapping" if overlap else ""))
        # (split-K only where the columns are blocks of a second axis, a convolution's
        # output channels: a 1024^3 matrix product's 4 x 16 tile split over k ran 0.75x
        # instead of 0.95x onnxruntime in one cpu_ops run on a Zen 3, and slower on a Zen 5
        # too; and only with 16 registers: their 8-FMA tiles read 4 weight vectors a step,
        # 128 bytes every 4 cycles, about all an L2 delivers, where AVX-512's 28-FMA tiles
        # read 2; not measured on an AVX-512 core)
        if not overlap and col_axis != v and vector_bits < 512:
            extent_in_tile = {col_axis: cols, v: group * width}
            if rows_axis is not None:
                extent_in_tile[rows_axis] = rows
            outer, reduce = split_reduction(op, outer, reduce, extent_in_tile, notes, caches)
        loops = outer + reduce + tile
        return _parallelize(StageSchedule(loops, len(outer), notes), total * math.prod(extents[k:]), k)
    return _parallelize(StageSchedule(spatial + reduce, None, ["scalar reduction"]), total, k)


MAX_GROUP = 4  # vectors per block that the blocked tile takes as one column


def second_axis(op: kernel.ComputeOp, v: int, rows_axis: int | None) -> int | None:
    """A spatial axis for the register tile's columns besides the vector axis `v`: one that
    some load of the body reads together with `v` (a weight vector per column) and that no
    load without `v` reads (the broadcast operand, shared by the columns); None if none is,
    or a load's indices are not the axes themselves."""
    reads, exact = affine_reads(op)
    if not exact:
        return None
    uses = [u for u, _, _ in reads]
    broadcast = [u for u in uses if v not in u]
    if not broadcast:
        return None
    for d in range(op.spatial_count):
        if d in (v, rows_axis) or op.domain[d] == 1:
            continue
        if all(d not in u for u in broadcast) and any(d in u and v in u for u in uses):
            return d
    return None


FEW_CHUNKS = 4  # a parallel loop of fewer trips than this ...
MANY_CHUNKS = 8  # ... gives way to a later one of at least this many (parallel_loop)


def parallel_loop(loops: list[Loop], limit: int, spatial: int | None = None) -> int | None:
    """Which of the first `limit` loops to make parallel (moved outermost), or None: the
    first serial loop of more than one trip (with `spatial`, of a spatial axis), unless it
    has fewer than FEW_CHUNKS trips and a later one has MANY_CHUNKS. Two or three chunks
    leave no slack: a thread that starts late (on a shared core) leaves the other to run
    its chunk after its own, and the launch takes twice as long; a depthwise layer's 2
    channel blocks split that way, its 112 rows finely."""
    eligible = []
    for i, loop in enumerate(loops[:limit]):
        if spatial is not None and loop.axis >= spatial:
            continue
        if loop.extent > 1 and loop.kind == "serial":
            if any(l.axis == loop.axis for l in loops[:i]):
                break  # an outer loop of the same axis must stay outside
            eligible.append(i)
    if not eligible:
        return None
    if loops[eligible[0]].extent < FEW_CHUNKS:
        return next((i for i in eligible if loops[i].extent >= MANY_CHUNKS), eligible[0])
    return eligible[0]


def with_parallel_loop(s: StageSchedule, spatial: int | None, notes: Sequence[str] = ()) -> StageSchedule:
    """`s` with parallel_loop's loop (outside the accumulator tile) made parallel and moved
    outermost, `notes` added; `s` itself where no loop qualifies."""
    i = parallel_loop(s.loops, s.acc_at if s.acc_at is not None else len(s.loops), spatial)
    if i is None:
        return s
    loops = [s.loops[i].but(kind="parallel")] + s.loops[:i] + s.loops[i + 1 :]
    return StageSchedule(loops, s.acc_at, [*s.notes, *notes])


def _parallelize(s: StageSchedule, work: int, spatial: int | None = None) -> StageSchedule:
    """A parallel loop where the work (points x reduction steps) pays for a thread hand-off
    (~20 us); with `spatial` (the spatial axes' count) of a spatial axis only (a split-K
    chunk loop outside the tiles stays serial: the threads would race on the sums)."""
    return s if work < 4096 else with_parallel_loop(s, spatial, ["parallel"])
