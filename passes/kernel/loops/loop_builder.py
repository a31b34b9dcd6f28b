"""Build the loop nest of one kernel.compute stage under a schedule, in upstream IR.

The result is a function over the kernel's buffers and a launch range [lo, hi) of its
parallel loop, made of scf.for/scf.if, arith, math, memref and vector ops only. Affine
indices are expanded to index arithmetic; `kernel.load`'s padding becomes clamped loads
and selects (scalar) or masked loads (vector); the lanes of a vectorized loop become
vector values wherever the computation depends on them, and stay scalars (broadcast on
use) where it does not; loads are classified per index map as uniform, contiguous or
gathered.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.dialects import arith, gpu, memref, scf, vector
from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType, VectorType, i1, i64
from xdsl.dialects.utils import FastMathFlag
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, TypedAttribute

from tessel.dialects import kernel
from tessel.ir.diagnostics import TesselError, op_location
from tessel.passes.kernel.loops import split_k, transfer
from tessel.passes.kernel.loops.affine_analysis import dims_only
from tessel.passes.kernel.loops.dot_accumulate import accumulate_dot
from tessel.passes.kernel.loops.emitter import INDEX, Emitter, Index, cmpi, vector_element, vector_of
from tessel.passes.kernel.loops.lane_body import RegionCloner
from tessel.passes.kernel.loops.loop import GPU_KINDS, Loop
from tessel.passes.kernel.loops.schedule import StageSchedule
from tessel.passes.kernel.loops.shared_tiles import copy_tile, shared_bytes, tile_boxes
from tessel.passes.kernel.loops.transpose_tile import (
    coefficients,
    contiguous,
    copied_load,
    transposable,
    transpose_tile,
)

SHARED = 3  # the memref memory space of shared-memory tiles (NVVM's address space 3)
SHARED_LIMIT = 48 * 1024  # static shared memory per block (more needs an opt-in at launch)


Vars = dict[int, Index]  # id(loop) -> its variable here (an int where the loop is unrolled)
Nest = Callable[[Emitter, Vars], None]  # what goes inside a loop nest, given its variables


def _store_to(value: SSAValue, buffer: SSAValue, idx: list[SSAValue]) -> Callable[[Emitter], None]:
    return lambda e: e.put(memref.StoreOp.get(value, buffer, idx))


class StageLowering:
    """One stage + schedule -> the body of a stage function (args: buffers..., lo, hi)."""

    def __init__(
        self,
        op: kernel.ComputeOp,
        schedule: StageSchedule,
        buffers: dict[SSAValue, SSAValue],
        lo: SSAValue,
        hi: SSAValue,
        rows: Sequence[Index] = (),
    ):
        # rows: the values of the first len(rows) axes, fixed by an enclosing loop nest (row
        # fusion, loops/row_fusion.py); the schedule's loops of those axes have extent 1 and
        # was validated on that one-row view of the stage
        if not rows:
            schedule.validate(op)
        if schedule.shared_at is not None and shared_bytes(op, schedule) > SHARED_LIMIT:
            raise TesselError(
                f"the shared-memory tiles of stage {op.stage.data} take {shared_bytes(op, schedule)} bytes, "
                f"over the {SHARED_LIMIT} a block may use",
                op_location(op),
            )
        self.op = op
        self.s = schedule
        self.buffers = buffers  # kernel-function value -> stage-function argument
        self.lo, self.hi = lo, hi
        self.extents = op.domain
        self.k = op.spatial_count
        vec = schedule.loops[-1] if schedule.loops and schedule.loops[-1].kind == "vector" else None
        self.vec = vec
        self.width = vec.extent if vec else 1
        # every vector starts at a multiple of the width: the other loops of its axis
        # step by multiples of it
        self.aligned = vec is not None and all(
            l.stride % self.width == 0 for l in schedule.loops if l.axis == vec.axis and l is not vec
        )
        self.out_type = op.out.type
        assert isinstance(self.out_type, MemRefType)
        # body load -> (shared tile, base index per dim), inside loops[shared_at]
        self.staged_now: dict[Operation, tuple[SSAValue, list[Index]]] = {}
        self.rows = list(rows)
        self.not_last: set[int] = set()  # ids of loops whose last iteration is emitted apart

    # ------------------------------------------------------------------ loop nest

    def build(self, block: Block) -> None:
        e = Emitter(block)
        tile_start = self.s.acc_at if self.op.reduce_count and self.s.acc_at is not None else None
        outer = self.s.loops if tile_start is None else self.s.loops[:tile_start]
        if tile_start is None and self.op.reduce_count:
            # scalar accumulation: reductions innermost, one output element at a time
            outer = [l for l in self.s.loops if l.axis < self.k]
        self._nest(e, outer, 0, {}, lambda e2, vars_: self._inner(e2, vars_, tile_start))

    def _nest(self, e: Emitter, loops: list[Loop], i: int, vars_: Vars, inner: Nest) -> None:
        if i == len(loops) or loops[i].kind == "vector":
            inner(e, vars_)
            return
        loop = loops[i]
        bound = self._bound(e, loop, vars_)
        if loop.kind in GPU_KINDS:
            self._bound_to_gpu(e, loops, i, vars_, inner, bound)
            return
        if loop.kind == "unroll" and self._transposes(loops, i, bound):
            self._transpose(e, loop, vars_)
            return
        if loop.kind == "unroll":
            for v in range(loop.extent):
                if isinstance(bound, int):
                    if v < bound:
                        self._nest(e, loops, i + 1, {**vars_, id(loop): v}, inner)
                    continue
                cond = e.emit(cmpi(e.index(v), bound, "slt"))
                then = Block()
                self._nest(Emitter(then, e.consts), loops, i + 1, {**vars_, id(loop): v}, inner)
                then.add_op(scf.YieldOp())
                e.put(scf.IfOp(cond, [], Region(then)))
            return
        if loop.kind == "parallel":
            lo, hi = self.lo, self.hi
        else:
            lo, hi = e.index(0), e.ssa(bound)
        tail = self._peels_tail(loop, bound)
        if tail:  # the iterations but the last without the vector tail's masks
            self.not_last.add(id(loop))
            hi = e.index(loop.extent - 1)
        body = Block(arg_types=[INDEX])
        body.args[0].name_hint = self.op.axis_names[loop.axis]
        self._nest(Emitter(body, {}), loops, i + 1, {**vars_, id(loop): body.args[0]}, inner)
        body.add_op(scf.YieldOp())
        e.put(scf.ForOp(lo, hi, e.index(1), [], Region(body)))
        if tail:  # the last, with them
            self.not_last.discard(id(loop))
            self._nest(e, loops, i + 1, {**vars_, id(loop): loop.extent - 1}, inner)

    def _peels_tail(self, loop: Loop, bound: Index) -> bool:
        """Is `loop` the outermost serial loop of the vector axis, which ends in a partial
        vector (a softmax scaled in place over 1500 columns: 187 whole vectors of 8 and one
        of 4)? Its iterations but the last then need no lane masks (_bound)."""
        vec = self.vec
        if vec is None or loop.kind != "serial" or loop.axis != vec.axis or not isinstance(bound, int) or bound < 2:
            return False
        same = [l for l in self.s.loops if l.axis == loop.axis]
        return max(l.stride for l in same) == loop.stride and not self._divides(loop) and not any(l.clamp for l in same)

    def _transposes(self, loops: list[Loop], i: int, bound: Index) -> bool:
        """Is loops[i] the unrolled axis of a transposed tile (transpose_tile.py): a copy
        contiguous along it, just outside the vector loop, both whole here (no tail masks)?"""
        vec, loop, load = self.vec, loops[i], copied_load(self.op)
        if vec is None or load is None or not transposable(load, self.width) or i != len(loops) - 2:
            return False
        if loop.extent != self.width or bound != loop.extent or loop.axis >= self.k:
            return False
        if not (self._divides(vec) or any(l.clamp for l in self.s.loops if l.axis == vec.axis)):
            return False
        # tiles of u start at multiples of the width (seen through floordiv/mod) or anywhere
        aligned = all(
            l.stride % self.width == 0 and not l.clamp for l in self.s.loops if l.axis == loop.axis and l is not loop
        )
        return contiguous(coefficients(load, list(self.op.body.block.args), loop.axis, self.width, aligned))

    def _transpose(self, e: Emitter, loop: Loop, vars_: Vars) -> None:
        load = copied_load(self.op)
        assert load is not None and self.vec is not None
        buf, v = self.buffer(load.memref), self.vec.axis
        axes: list[SSAValue] = list(self.op.body.block.args)
        exprs = dims_only(load.map.data)
        vt = vector_of(load.result.type, self.width)

        def load_row(ee: Emitter, lane: int) -> SSAValue:
            at = self.axis_values(ee, {**vars_, id(loop): 0, id(self.vec): 0})
            at[v] = ee.add(at[v], lane)
            dims = [at[axes.index(i)] for i in load.indices]
            return ee.emit(vector.LoadOp(buf, [ee.ssa(ee.affine(x, dims)) for x in exprs], vt))

        def store_column(ee: Emitter, j: int, column: SSAValue) -> None:
            self._store(ee, {**vars_, id(loop): j}, lambda *_: column)

        transpose_tile(e, self.width, load_row, store_column)

    def _bound_to_gpu(self, e: Emitter, loops: list[Loop], i: int, vars_: Vars, inner: Nest, bound: Index) -> None:
        """The loop variable is a GPU index (the grid covers the loop's extent exactly);
        in the tail of its axis, the threads past the bound do nothing."""
        loop = loops[i]
        cls = gpu.BlockIdOp if loop.kind == "block" else gpu.ThreadIdOp
        idx = e.emit(cls(gpu.DimensionAttr(gpu.DimensionEnum("xyz"[loop.dim]))))
        idx.name_hint = f"{self.op.axis_names[loop.axis]}_{'b' if loop.kind == 'block' else 't'}{'xyz'[loop.dim]}"
        if isinstance(bound, int) and bound >= loop.extent:
            self._nest(e, loops, i + 1, {**vars_, id(loop): idx}, inner)
            return
        if self.s.shared_at is not None:
            # every thread must reach the barriers: the threads past the end repeat the last
            # valid one (the same values, stored twice) instead of skipping the body
            last = e.emit(arith.SubiOp(e.ssa(bound), e.index(1)))
            self._nest(e, loops, i + 1, {**vars_, id(loop): e.emit(arith.MinSIOp(idx, last))}, inner)
            return
        then = Block()
        self._nest(Emitter(then, {}), loops, i + 1, {**vars_, id(loop): idx}, inner)
        then.add_op(scf.YieldOp())
        e.put(scf.IfOp(e.emit(cmpi(idx, e.ssa(bound), "slt")), [], Region(then)))

    def _bound(self, e: Emitter, loop: Loop, vars_: Vars) -> Index:
        """Trip count of `loop` here: its extent, or less in the tail of its axis."""
        if self._divides(loop) or any(l.clamp for l in self.s.loops if l.axis == loop.axis):
            return loop.extent
        if any(l.axis == loop.axis and id(l) in self.not_last for l in self.s.loops):
            return loop.extent  # an iteration of the outer loop before its last: whole tiles
        n = self.extents[loop.axis]
        base: Index = 0
        for outer in self.s.loops:
            if outer.axis == loop.axis and outer.stride > loop.stride:
                base = e.add(base, e.mul(vars_[id(outer)], outer.stride))
        if isinstance(base, int):
            return max(0, min(loop.extent, -((base - n) // loop.stride)))
        rest = e.ceildiv(e.emit(arith.SubiOp(e.index(n), base)), loop.stride)
        return e.emit(arith.MinSIOp(e.ssa(rest), e.index(loop.extent)))

    def _divides(self, loop: Loop) -> bool:
        """No tail: every loop of this axis tiles the one outside it exactly."""
        loops = sorted((l for l in self.s.loops if l.axis == loop.axis), key=lambda l: -l.stride)
        n = self.extents[loop.axis]
        if loops[0].extent * loops[0].stride != n:
            return False
        return all(a.stride == b.extent * b.stride for a, b in zip(loops, loops[1:]))

    def axis_values(self, e: Emitter, vars_: Vars) -> list[Index]:
        values: list[Index] = []
        for axis in range(len(self.extents)):
            total: Index = self.rows[axis] if axis < len(self.rows) else 0
            for loop in self.s.loops:
                if loop.axis == axis and id(loop) in vars_:
                    step = e.mul(vars_[id(loop)], loop.stride)
                    if loop.clamp:  # the last tile ends at the axis's end
                        last = self.extents[axis] - loop.stride
                        step = min(step, last) if isinstance(step, int) else e.emit(arith.MinSIOp(step, e.index(last)))
                    total = e.add(total, step)
            values.append(total)
        return values

    # ------------------------------------------------------------------ innermost

    def _inner(self, e: Emitter, vars_: Vars, tile_start: int | None) -> None:
        if not self.op.reduce_count:
            self._store(e, vars_, lambda ee, axes, mask: self._body(ee, axes, mask))
            return
        if tile_start is None:
            self._scalar_reduction(e, vars_)
        else:
            self._tiled_reduction(e, vars_, tile_start)

    def _scalar_reduction(self, e: Emitter, vars_: Vars) -> None:
        red = [l for l in self.s.loops if l.axis >= self.k]
        acc_t = self._init().get_type()
        init = e.const(self._init())
        result = self._reduce_loops(e, red, 0, vars_, init, acc_t)
        axes = self.axis_values(e, vars_)
        value = self._then(e, axes, result, None)
        idx = [e.ssa(a) for a in axes[: self.k]]
        e.put(memref.StoreOp.get(value, self.buffer(self.op.out), idx))

    def _reduce_loops(
        self, e: Emitter, loops: list[Loop], i: int, vars_: Vars, acc: SSAValue, acc_t: Attribute
    ) -> SSAValue:
        """scf.for nest over reduction loops carrying the accumulator."""
        if i == len(loops):
            axes = self.axis_values(e, vars_)
            term = self._body(e, axes, None)
            return self._combine(e, acc, term)
        loop = loops[i]
        if loop.kind == "unroll":
            for v in range(loop.extent):
                acc = self._reduce_loops(e, loops, i + 1, {**vars_, id(loop): v}, acc, acc_t)
            return acc
        body = Block(arg_types=[INDEX, acc_t])
        body.args[0].name_hint = self.op.axis_names[loop.axis]
        inner = Emitter(body, {})
        staged = self._staging_point(loop)
        if staged:
            self._stage_tiles(inner, {**vars_, id(loop): body.args[0]})
        result = self._reduce_loops(inner, loops, i + 1, {**vars_, id(loop): body.args[0]}, body.args[1], acc_t)
        if staged:
            inner.put(gpu.BarrierOp())
        body.add_op(scf.YieldOp(result))
        bound = self._bound(e, loop, vars_)
        for_op = scf.ForOp(e.index(0), e.ssa(bound), e.index(1), [acc], Region(body))
        e.put(for_op)
        return for_op.results[0]

    def _tiled_reduction(self, e: Emitter, vars_: Vars, tile_start: int) -> None:
        """acc[tile] = init; for reduction loops: for tile: acc += term; for tile: store."""
        inner = self.s.loops[tile_start:]
        red = [l for l in inner if l.axis >= self.k]
        tile = [l for l in inner if l.axis < self.k and l.kind != "vector"]
        acc_t = self._init().get_type()
        lanes = self.width
        shape = [l.extent for l in tile] or [1]
        slot_t = vector_of(acc_t, lanes) if lanes > 1 else acc_t
        acc = e.emit(memref.AllocaOp.get(slot_t, shape=shape))
        init = e.const(self._init())
        if lanes > 1:
            assert isinstance(slot_t, VectorType)
            init = e.emit(vector.BroadcastOp(init, slot_t))

        def slot(ee: Emitter, tvars: Vars) -> list[SSAValue]:
            return [ee.ssa(tvars[id(l)]) for l in tile] or [ee.index(0)]

        # split-K: reduction loops outside the tile; the output holds the partial sums
        # between their passes, the first pass starts from init, the last adds the epilogue
        outside = [l for l in self.s.loops[:tile_start] if l.axis >= self.k]
        first, last = split_k.pass_flags(e, outside, vars_, lambda loop: self._bound(e, loop, vars_))

        def start(ee: Emitter, tv: Vars) -> None:
            value = init if first is None else ee.emit(arith.SelectOp(first, init, self._load_out(ee, tv)))
            ee.put(memref.StoreOp.get(value, acc, slot(ee, tv)))

        self._tile(e, tile, 0, vars_, start)

        def update(ee: Emitter, tv: Vars) -> None:
            axes = self.axis_values(ee, tv)
            mask = self._lane_mask(ee, tv)
            term = self._body(ee, axes, mask)
            current = ee.emit(memref.LoadOp.get(acc, slot(ee, tv)))
            ee.put(memref.StoreOp.get(self._combine(ee, current, term), acc, slot(ee, tv)))

        def reduction_nest(ee: Emitter, rv: Vars, j: int = 0) -> None:
            if j == len(red):
                self._tile(ee, tile, 0, rv, update)
                return
            loop = red[j]
            if loop.kind == "unroll":
                for v in range(loop.extent):
                    reduction_nest(ee, {**rv, id(loop): v}, j + 1)
                return
            body = Block(arg_types=[INDEX])
            body.args[0].name_hint = self.op.axis_names[loop.axis]
            inner_e = Emitter(body, {})
            staged = self._staging_point(loop)
            if staged:
                self._stage_tiles(inner_e, {**rv, id(loop): body.args[0]})
            reduction_nest(inner_e, {**rv, id(loop): body.args[0]}, j + 1)
            if staged:
                inner_e.put(gpu.BarrierOp())
            body.add_op(scf.YieldOp())
            ee.put(scf.ForOp(ee.index(0), ee.ssa(self._bound(ee, loop, rv)), ee.index(1), [], Region(body)))

        reduction_nest(e, vars_)

        def finish(e3: Emitter, axes: list[Index], mask: SSAValue | None, value: SSAValue) -> SSAValue:
            if last is None:
                return self._then(e3, axes, value, mask)
            return e3.emit(arith.SelectOp(last, self._as_vector(e3, self._then(e3, axes, value, mask)), value))

        def store(ee: Emitter, tv: Vars) -> None:
            value = ee.emit(memref.LoadOp.get(acc, slot(ee, tv)))
            mine = None
            if last is not None:
                mine = split_k.owned(ee, self.s.loops[:tile_start], tv, self.axis_values(ee, tv))
            self._guarded(ee, mine, lambda e2: self._store(e2, tv, lambda e3, axes, m: finish(e3, axes, m, value)))

        self._tile(e, tile, 0, vars_, store)

    def _load_out(self, e: Emitter, vars_: Vars) -> SSAValue:
        """The output's partial sums at the tile point `vars_` (whole vectors along the
        innermost axis: the schedule's validation asks for them)."""
        idx = [e.ssa(a) for a in self.axis_values(e, self._first_lane(vars_))[: self.k]]
        out = self.buffer(self.op.out)
        if self.width == 1:
            return e.emit(memref.LoadOp.get(out, idx))
        assert isinstance(self.out_type, MemRefType)
        return e.emit(vector.LoadOp(out, idx, vector_of(self.out_type.element_type, self.width)))

    def _tile(self, e: Emitter, tile: list[Loop], i: int, vars_: Vars, fn: Nest) -> None:
        """The tile loops (unrolled or serial) around fn; the vector loop is lanes."""
        if i == len(tile):
            fn(e, vars_)
            return
        loop = tile[i]
        bound = self._bound(e, loop, vars_)
        if loop.kind == "unroll":
            for v in range(loop.extent):
                if isinstance(bound, int) and v >= bound:
                    break
                if isinstance(bound, int):
                    self._tile(e, tile, i + 1, {**vars_, id(loop): v}, fn)
                    continue
                cond = e.emit(cmpi(e.index(v), bound, "slt"))
                then = Block()
                self._tile(Emitter(then, e.consts), tile, i + 1, {**vars_, id(loop): v}, fn)
                then.add_op(scf.YieldOp())
                e.put(scf.IfOp(cond, [], Region(then)))
            return
        body = Block(arg_types=[INDEX])
        self._tile(Emitter(body, {}), tile, i + 1, {**vars_, id(loop): body.args[0]}, fn)
        body.add_op(scf.YieldOp())
        e.put(scf.ForOp(e.index(0), e.ssa(bound), e.index(1), [], Region(body)))

    # ------------------------------------------------------------------ shared memory

    def _staging_point(self, loop: Loop) -> bool:
        return self.s.shared_at is not None and loop is self.s.loops[self.s.shared_at]

    def _stage_tiles(self, e: Emitter, vars_: Vars) -> None:
        """Copy, with all the block's threads, the part of every input the body reads in
        this iteration of loops[shared_at] (over all threads and every loop inside it) into
        a shared-memory tile, then wait for the block. A load's index expressions must be
        linear in the axes (anything else stays a global load): each tile dimension is then
        a box [base + lo, base + hi], `base` the expression at the loops outside (threads
        at 0), lo/hi the extremes of what the inside loops add. Elements past the buffer's
        edge (tails) are read as 0 and never used."""
        at = self.s.shared_at
        assert at is not None
        threads = [l for l in self.s.loops if l.kind == "thread"]
        count = math.prod(l.extent for l in threads)
        tid: Index = 0
        scale = 1
        for dim in range(3):
            for l in threads:
                if l.dim == dim:
                    index = e.emit(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum("xyz"[dim]))))
                    tid = e.add(tid, e.mul(index, scale))
                    scale *= l.extent
        fixed = {**vars_, **{id(l): 0 for l in threads}}
        base_axes = self.axis_values(e, fixed)
        self.staged_now = {}
        for load, box in tile_boxes(self.op, self.s):
            t = self.buffer(load.memref).type
            assert isinstance(t, MemRefType)
            bases: list[Index] = []
            for const, coeffs, lo, _ in box:
                b: Index = const + lo
                for axis, c in coeffs.items():
                    b = e.add(b, e.mul(base_axes[axis], c))
                bases.append(b)
            sizes = [hi - lo + 1 for _, _, lo, hi in box]
            tile = e.emit(memref.AllocaOp.get(t.element_type, shape=sizes, memory_space=IntegerAttr(SHARED, i64)))
            copy_tile(e, self.buffer(load.memref), t, tile, bases, sizes, tid, count)
            self.staged_now[load] = (tile, bases)
        e.put(gpu.BarrierOp())

    # ------------------------------------------------------------------ lanes

    def _lane_mask(self, e: Emitter, vars_: Vars) -> SSAValue | None:
        """vector<W x i1> of the lanes inside the axis, when the vector loop has a tail."""
        if self.vec is None:
            return None
        bound = self._bound(e, self.vec, vars_)
        if isinstance(bound, int) and bound >= self.width:
            return None
        return e.emit(vector.CreateMaskOp([e.ssa(bound)], vector_of(i1, self.width)))

    def _store(
        self, e: Emitter, vars_: Vars, value_fn: Callable[[Emitter, list[Index], SSAValue | None], SSAValue]
    ) -> None:
        vars_ = self._first_lane(vars_)
        axes = self.axis_values(e, vars_)
        mask = self._lane_mask(e, vars_)
        value = value_fn(e, axes, mask)
        idx = [e.ssa(a) for a in axes[: self.k]]
        out = self.buffer(self.op.out)
        if self.width == 1:
            e.put(memref.StoreOp.get(value, out, idx))
            return
        vec = self.vec
        assert vec is not None, "lanes come from the vector loop"
        value = self._as_vector(e, value)
        contiguous = vec.axis == self.k - 1
        if contiguous and mask is None:
            e.put(vector.StoreOp(value, out, idx))
        elif contiguous:
            assert mask is not None
            e.put(vector.MaskedStoreOp(out, idx, mask, value))
        elif transfer.transferable(vector_element(value)):  # lanes along an outer dimension
            e.put(transfer.write(value, out, idx, vec.axis, mask))
        else:
            for lane in range(self.width):
                lane_idx = list(idx)
                a = vec.axis
                lane_idx[a] = e.ssa(e.add(axes[a], lane))
                scalar = e.emit(vector.ExtractOp(value, [lane], vector_element(value)))
                self._guarded_lane(e, mask, lane, _store_to(scalar, out, lane_idx))

    def _first_lane(self, vars_: Vars) -> Vars:
        """`vars_` at the first lane of the vector loop (where a vector load or store starts)."""
        return vars_ if self.vec is None else {**vars_, id(self.vec): 0}

    def _guarded_lane(self, e: Emitter, mask: SSAValue | None, lane: int, fn: Callable[[Emitter], None]) -> None:
        bit = None if mask is None else e.emit(vector.ExtractOp(mask, [lane], vector_element(mask)))
        self._guarded(e, bit, fn)

    @staticmethod
    def _guarded(e: Emitter, cond: SSAValue | None, fn: Callable[[Emitter], None]) -> None:
        """fn's ops, inside an scf.if on `cond` unless it is None."""
        if cond is None:
            fn(e)
            return
        then = Block()
        fn(Emitter(then, e.consts))
        then.add_op(scf.YieldOp())
        e.put(scf.IfOp(cond, [], Region(then)))

    def _as_vector(self, e: Emitter, value: SSAValue) -> SSAValue:
        if self.width > 1 and not isinstance(value.type, VectorType):
            return e.emit(vector.BroadcastOp(value, vector_of(value.type, self.width)))
        return value

    def _init(self) -> TypedAttribute:
        """The reduction's initial value (the verifier makes it a typed attribute)."""
        init = self.op.init
        assert isinstance(init, TypedAttribute)
        return init

    def buffer(self, v: SSAValue) -> SSAValue:
        """The stage-function value behind a kernel-function value."""
        return self.buffers.get(v, v)

    # ------------------------------------------------------------------ regions

    def _combine(self, e: Emitter, acc: SSAValue, term: SSAValue) -> SSAValue:
        if isinstance(acc.type, VectorType):
            term = self._as_vector(e, term)
        floating = not isinstance(self._init().get_type(), IntegerType)
        kind = self.op.combiner
        assert kind is not None, "a reduction has a combiner"
        if floating and kind == "add" and (fused := accumulate_dot(e, acc, term)) is not None:
            return fused
        if floating:
            floats: dict[str, type[arith.FloatingPointLikeBinaryOperation]] = {
                "add": arith.AddfOp,
                "mul": arith.MulfOp,
                "max": arith.MaximumfOp,
                "min": arith.MinimumfOp,
            }
            cls = floats[kind]
            return e.emit(
                cls(acc, term, flags=arith.FastMathFlagsAttr([FastMathFlag.ALLOW_CONTRACT]))
                if kind in ("add", "mul")
                else cls(acc, term)
            )
        ints: dict[str, type[arith.SignlessIntegerBinaryOperation]] = {
            "add": arith.AddiOp,
            "mul": arith.MuliOp,
            "max": arith.MaxSIOp,
            "min": arith.MinSIOp,
            "umax": arith.MaxUIOp,
            "umin": arith.MinUIOp,
        }
        if kind == "add" and (fused := accumulate_dot(e, acc, term)) is not None:
            return fused
        return e.emit(ints[kind](acc, term))

    def _body(self, e: Emitter, axes: list[Index], mask: SSAValue | None) -> SSAValue:
        return RegionCloner(self, e, axes, mask).run(self.op.body.block, list(axes))

    def _then(self, e: Emitter, axes: list[Index], acc: SSAValue, mask: SSAValue | None) -> SSAValue:
        if not self.op.then.blocks:
            return acc
        return RegionCloner(self, e, axes, mask).run(self.op.then.block, [*axes[: self.k], acc])
