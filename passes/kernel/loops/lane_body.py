"""The body of a stage at one point of its loop nest: a compute region's ops re-emitted
with the axis values there, lane-dependent values as vectors (loads classified as
uniform, contiguous or gathered; padding and tails as masks), and ops that xDSL has only
in scalar form emitted once per lane."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from xdsl.dialects import affine, arith, memref, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    MemRefType,
    VectorType,
    i1,
    i64,
)
from xdsl.dialects.utils import FastMathFlag
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import kernel
from tessel.dialects.arith_vectors import CAST_FORMS, VECTOR_FORMS
from tessel.passes.kernel.loops import transfer
from tessel.passes.kernel.loops.affine_analysis import (
    Range,
    affine_range,
    aligned_lane_coefficient,
    dims_only,
    linear_coefficient,
)
from tessel.passes.kernel.loops.emitter import INDEX, Emitter, Index, cmpi, vector_element, vector_of, zero_attr
from tessel.passes.kernel.loops.loop import Loop

MAX_STRIDE = 4  # strided loads wider than this many vectors stay lane by lane


class StageView(Protocol):
    """What a lane body reads of the stage being lowered (loop_builder.StageLowering)."""

    @property
    def op(self) -> kernel.ComputeOp: ...
    @property
    def extents(self) -> Sequence[int]: ...
    @property
    def vec(self) -> Loop | None: ...
    @property
    def width(self) -> int: ...
    @property
    def aligned(self) -> bool: ...
    @property
    def staged_now(self) -> dict[Operation, tuple[SSAValue, list[Index]]]:
        """Body loads read from a shared-memory tile here: (tile, base index per dim)."""
        ...

    def buffer(self, v: SSAValue) -> SSAValue: ...


class RegionCloner:
    """Re-emits a compute region's ops at one point of the loop nest: index block args are
    the axis values there, lane-dependent values become vectors."""

    def __init__(self, stage: StageView, e: Emitter, axes: Sequence[Index], mask: SSAValue | None):
        self.stage = stage
        self.e = e
        self.axes = axes
        self.mask = mask
        self.vec_axis = stage.vec.axis if stage.vec is not None else None
        self.width = stage.width
        self.gathered: set[Index] = set()  # vectors built lane by lane (_gather_vector)

    def run(self, block: Block, args: Sequence[Index]) -> SSAValue:
        env: dict[SSAValue, Index] = {}
        self.lanes: set[SSAValue] = set()
        for i, (arg, value) in enumerate(zip(block.args, args)):
            env[arg] = value
            if i < len(self.axes) and i == self.vec_axis:
                self.lanes.add(arg)
            if isinstance(value, SSAValue) and isinstance(value.type, VectorType):
                self.lanes.add(arg)
        self.arg_pos: dict[SSAValue, int] = {a: i for i, a in enumerate(block.args)}  # (a list's `in` compares)
        for op in block.ops:
            if isinstance(op, kernel.YieldOp):
                return self.e.ssa(env[op.values[0]])
            self._op(op, env)
        raise AssertionError("region without kernel.yield")

    def _varies(self, v: SSAValue) -> bool:
        return v in self.lanes

    def _op(self, op: Operation, env: dict[SSAValue, Index]) -> None:
        e = self.e
        if isinstance(op, affine.LoadOp | kernel.LoadOp):
            env[op.results[0]] = self._load(op, env)
            return
        if isinstance(op, memref.LoadOp):
            env[op.results[0]] = self._memref_load(op, env)
            return
        if isinstance(op, affine.ApplyOp):
            dims = [env[v] for v in op.mapOperands]
            # only the operands the map uses: a pool's tap count takes every axis and reads
            # the spatial ones, so it is one scalar for the 16 channel lanes, not 16
            used = dims_only(op.map.data)[0].used_dims()
            if any(self._varies(v) for i, v in enumerate(op.mapOperands) if i in used):
                env[op.result] = self._lane_index(dims_only(op.map.data)[0], op.mapOperands, env)
                self.lanes.add(op.result)
            else:
                env[op.result] = e.affine(dims_only(op.map.data)[0], dims)
            return
        if isinstance(op, arith.ConstantOp):
            env[op.result] = e.const(op.value)
            return
        varying = any(self._varies(v) for v in op.operands)
        if varying and isinstance(op, tuple(CAST_FORMS)) and any(env[v] in self.gathered for v in op.operands):
            # a cast of a vector built lane by lane (a strided load) stays per lane, before the
            # insertion: LLVM assembles a vector of bytes from scalars through the stack, which
            # made a stride-2 int8 convolution 5x slower than casting each loaded byte
            env[op.results[0]] = self._per_lane(op, env)
            self.lanes.add(op.results[0])
            return
        # a select whose condition is the same for every lane (a concat's piece chosen by a
        # block index) picks whole vectors: LLVM's select takes a scalar i1 over vectors
        uniform_select = isinstance(op, arith.SelectOp) and not self._varies(op.cond)
        if varying and _scalar_only(op) and not uniform_select:
            env[op.results[0]] = self._per_lane(op, env)
            self.lanes.add(op.results[0])
            return
        operands: list[SSAValue] = []
        for i, v in enumerate(op.operands):
            value = e.ssa(env[v])
            if varying and not isinstance(value.type, VectorType) and not (uniform_select and i == 0):  # (0: cond)
                value = self._splat(value)
            operands.append(value)
        result_types = [vector_of(r.type, self.width) if varying else r.type for r in op.results]
        cls = VECTOR_FORMS.get(type(op), type(op)) if varying else type(op)
        clone = cls.create(
            operands=operands, result_types=result_types, properties=dict(op.properties), attributes=dict(op.attributes)
        )
        if varying and not _accepts_vectors(clone):
            env[op.results[0]] = self._per_lane(op, env)
            self.lanes.add(op.results[0])
            return
        if isinstance(clone, arith.MulfOp | arith.AddfOp) and self.stage.op.combiner == "add":
            clone.properties["fastmath"] = arith.FastMathFlagsAttr([FastMathFlag.ALLOW_CONTRACT])
        e.put(clone)
        for r, new in zip(op.results, clone.results):
            env[r] = new
            if varying:
                self.lanes.add(r)

    def _splat(self, value: SSAValue) -> SSAValue:
        """A scalar broadcast to the lanes, once per block (Emitter.once)."""
        splat = vector_of(value.type, self.width)
        return self.e.once(("broadcast", value, self.width), lambda: vector.BroadcastOp(value, splat))

    def _per_lane(self, op: Operation, env: dict[SSAValue, Index]) -> SSAValue:
        """An op xDSL only has in scalar form (cmpi, cmpf, select), once per lane."""
        e = self.e
        scalars = []
        for lane in range(self.width):
            operands = []
            for v in op.operands:
                value = e.ssa(env[v])
                if isinstance(value.type, VectorType):
                    value = e.emit(vector.ExtractOp(value, [lane], value.type.element_type))
                operands.append(value)
            clone = op.__class__.create(
                operands=operands,
                result_types=[r.type for r in op.results],
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
            scalars.append(e.emit(clone))
        return self._gather_vector(scalars, op.results[0].type)

    # ------------------------------------------------------------------ loads

    def _ranges(self, operands: Sequence[SSAValue]) -> list[Range]:
        """Bounds of index operands that are axes of the stage: [0, extent - 1]."""
        out: list[Range] = []
        for v in operands:
            pos = self.arg_pos.get(v)
            if pos is not None and pos < len(self.stage.extents):
                n = self.stage.extents[pos]
                out.append((0, max(n - 1, 0)))
            else:
                out.append(None)
        return out

    def _indices(
        self, exprs: Sequence[AffineExpr], operands: Sequence[SSAValue], env: dict[SSAValue, Index]
    ) -> list[Index]:
        dims = [env[v] for v in operands]
        ranges = self._ranges(operands)
        return [self.e.affine(x, dims, ranges) for x in exprs]

    def _in_bounds(self, exprs: Sequence[AffineExpr], operands: Sequence[SSAValue], shape: Sequence[int]) -> list[bool]:
        """Per index: provably inside [0, n) for every point of the stage's domain."""
        ranges = self._ranges(operands)
        result = []
        for x, n in zip(exprs, shape):
            r = affine_range(x, ranges)
            result.append(r is not None and r[0] >= 0 and r[1] < n)
        return result

    def _lane_offsets(self, exprs: Sequence[AffineExpr], operands: Sequence[SSAValue]) -> list[int | None]:
        """Per index: its change per lane (None: not linear in the lane). Only the vector
        axis itself steps by one per lane; any other lane-dependent operand (an index read
        from data, a clamp or a reflection) changes by an unknown amount."""
        lane_dims = [i for i, v in enumerate(operands) if self._varies(v)]
        if self.stage.aligned and len(lane_dims) == 1 and self._is_vector_axis(operands[lane_dims[0]]):
            return [aligned_lane_coefficient(x, lane_dims[0], self.width) for x in exprs]
        coeffs: list[int | None] = []
        for x in exprs:
            c = 0
            linear = True
            for d in lane_dims:
                dc = linear_coefficient(x, d)
                if dc is None or (dc != 0 and not self._is_vector_axis(operands[d])):
                    linear = False
                    break
                c += dc
            coeffs.append(c if linear else None)
        return coeffs

    def _is_vector_axis(self, v: SSAValue) -> bool:
        pos = self.arg_pos.get(v)
        return pos is not None and pos == self.vec_axis

    def _lane_index(self, expr: AffineExpr, operands: Sequence[SSAValue], env: dict[SSAValue, Index]) -> SSAValue:
        """A vector<W x index> of an affine index that depends on the lane: where it is
        linear in the vector axis alone, its value at lane 0 plus c * [0, 1, ..., W-1]
        (a row's position in an rfactor's mask), else lane by lane."""
        e = self.e
        (step,) = self._lane_offsets([expr], operands)
        if step is not None:
            dims = [self._lane_value(v, env, 0) for v in operands]
            vt = VectorType(INDEX, [self.width])  # (typed for the ramp constant)
            base = e.emit(vector.BroadcastOp(e.ssa(e.affine(expr, dims)), vt))
            if step == 0:
                return base
            ramp = e.const(DenseIntOrFPElementsAttr.from_list(vt, [step * lane for lane in range(self.width)]))
            return e.emit(arith.AddiOp(base, ramp))
        lanes = []
        for lane in range(self.width):
            dims = [self._lane_value(v, env, lane) for v in operands]
            lanes.append(e.ssa(e.affine(expr, dims)))
        return self._gather_vector(lanes, INDEX)

    def _lane_value(self, v: SSAValue, env: dict[SSAValue, Index], lane: int) -> Index:
        value = env[v]
        if not self._varies(v):
            return value
        if self._is_vector_axis(v):
            return self.e.add(value, lane)
        assert isinstance(value, SSAValue), "a lane-dependent value is a vector"
        return self.e.emit(vector.ExtractOp(value, [lane], vector_element(value)))

    def _gather_vector(self, scalars: list[SSAValue], element: Attribute) -> SSAValue:
        e = self.e
        vt = vector_of(element, self.width)
        result = e.emit(vector.BroadcastOp(scalars[0], vt))
        for lane, s in enumerate(scalars[1:], start=1):
            result = e.emit(vector.InsertOp(s, result, [lane]))
        self.gathered.add(result)
        return result

    def _load(self, op: affine.LoadOp | kernel.LoadOp, env: dict[SSAValue, Index]) -> SSAValue:
        e = self.e
        staged = self.stage.staged_now.get(op)
        if staged is not None and self.width == 1:  # read from the block's shared-memory tile
            tile, bases = staged
            idx = self._indices(dims_only(op.map.data), list(op.indices), env)
            return e.emit(memref.LoadOp.get(tile, [e.ssa(e.add(i, _negate(e, b))) for i, b in zip(idx, bases)]))
        buf = self.stage.buffer(op.memref)
        t = buf.type
        assert isinstance(t, MemRefType)
        exprs = dims_only(op.map.data)
        operands = list(op.indices)
        padded = isinstance(op, kernel.LoadOp)
        cond_operand = op.cond if isinstance(op, kernel.LoadOp) else None
        safe = self._in_bounds(exprs, operands, t.get_shape())
        if padded and cond_operand is None and all(safe):
            padded = False  # the padding is never read
        pad = e.const(op.pad) if isinstance(op, kernel.LoadOp) and padded else None
        cond = env.get(cond_operand) if padded and cond_operand is not None else None
        assert not isinstance(cond, int), "a load's condition is an i1 value"
        coeffs = self._lane_offsets(exprs, operands) if self.width > 1 else [0] * len(exprs)
        uniform = all(c == 0 for c in coeffs) and not (
            cond is not None and isinstance(cond, SSAValue) and isinstance(cond.type, VectorType)
        )
        if uniform:
            idx = self._indices(exprs, operands, env)
            return self._scalar_load(buf, t, idx, pad, cond, safe)
        self.lanes.add(op.results[0])
        contiguous = coeffs[-1] == 1 and all(c == 0 for c in coeffs[:-1]) and cond is None
        if contiguous:
            start = [e.ssa(i) for i in self._indices(exprs, operands, env)]
            vt = vector_of(t.element_type, self.width)
            if not padded and self.mask is None:
                return self._once(("load", buf, *start, vt), buf, lambda: vector.LoadOp(buf, start, vt))
            mask = self._and(self._contiguous_mask(start, t.get_shape(), safe) if padded else None, self.mask)
            assert mask is not None, "a padded load, or a masked loop"
            passthru = e.emit(vector.BroadcastOp(pad if pad is not None else e.const(zero_attr(t.element_type)), vt))
            return e.emit(vector.MaskedLoadOp(buf, start, mask, passthru))
        step = coeffs[-1]
        if (
            step is not None
            and 2 <= step <= MAX_STRIDE
            and all(c == 0 for c in coeffs[:-1])
            and cond is None
            and not padded
            and self.mask is None
            and transfer.transferable(t.element_type)
        ):
            return self._strided_load(buf, t, exprs, operands, env, step)
        dim = transfer.along(coeffs)
        if dim is not None and cond is None and not padded and transfer.transferable(t.element_type):
            start = [e.ssa(i) for i in self._indices(exprs, operands, env)]
            zero = e.const(zero_attr(t.element_type))
            return e.emit(transfer.read(buf, start, dim, self.width, zero, self.mask))
        scalars = []
        for lane in range(self.width):
            dims = [self._lane_value(v, env, lane) for v in operands]
            idx = [e.affine(x, dims) for x in exprs]
            lane_cond = cond
            if isinstance(cond, SSAValue) and isinstance(cond.type, VectorType):
                lane_cond = e.emit(vector.ExtractOp(cond, [lane], vector_element(cond)))
            if self.mask is not None and not padded:
                pad = e.const(zero_attr(t.element_type))
                bit = e.emit(vector.ExtractOp(self.mask, [lane], vector_element(self.mask)))
                lane_cond = bit if lane_cond is None else e.emit(arith.AndIOp(lane_cond, bit))
            scalars.append(self._scalar_load(buf, t, idx, pad, lane_cond, safe))
        return self._gather_vector(scalars, t.element_type)

    def _strided_load(
        self,
        buf: SSAValue,
        t: MemRefType,
        exprs: Sequence[AffineExpr],
        operands: Sequence[SSAValue],
        env: dict[SSAValue, Index],
        step: int,
    ) -> SSAValue:
        """A load whose last index steps by `step` per lane (a stride-2 convolution, pool or
        slice read along its rows in NCHW): one contiguous load of width * step elements and
        a shuffle taking every step-th, instead of width scalar loads and inserts (16 of each
        per vector: MobileNet's stride-2 depthwise layers in NCHW ran 3x slower than
        onnxruntime's). The wide load reaches step - 1 elements past the last lane's; where
        the row is not provably that long, those lanes are masked off."""
        e = self.e
        start = [e.ssa(i) for i in self._indices(exprs, operands, env)]
        n = self.width * step
        wide = vector_of(t.element_type, n)
        (reaches,) = self._in_bounds([exprs[-1] + (step - 1)], operands, t.get_shape()[-1:])
        if reaches:
            v = self._once(("load", buf, *start, wide), buf, lambda: vector.LoadOp(buf, start, wide))
        else:
            mask = e.emit(vector.CreateMaskOp([e.index(n - step + 1)], vector_of(i1, n)))
            passthru = e.emit(vector.BroadcastOp(e.const(zero_attr(t.element_type)), wide))
            v = e.emit(vector.MaskedLoadOp(buf, start, mask, passthru))
        lanes = DenseArrayBase.from_list(i64, [step * lane for lane in range(self.width)])
        return e.emit(vector.ShuffleOp(v, v, lanes, result_type=vector_of(t.element_type, self.width)))

    def _once(self, key: tuple, buf: SSAValue, make: Callable[[], Operation]) -> SSAValue:
        """A load emitted once per block and stage (Emitter.once): not of the stage's own
        output, which it writes (a softmax scaled in place reads it back)."""
        if buf is self.stage.buffer(self.stage.op.out):
            return self.e.emit(make())
        return self.e.once((id(self.stage), *key), make)

    def _memref_load(self, op: memref.LoadOp, env: dict[SSAValue, Index]) -> SSAValue:
        e = self.e
        buf = self.stage.buffer(op.memref)
        values = [env[v] for v in op.indices]
        if not any(self._varies(v) for v in op.indices):
            return e.emit(memref.LoadOp.get(buf, [e.ssa(v) for v in values]))
        self.lanes.add(op.results[0])
        scalars = []
        for lane in range(self.width):
            idx = [e.ssa(self._lane_value(v, env, lane)) for v in op.indices]
            scalars.append(e.emit(memref.LoadOp.get(buf, idx)))
        assert isinstance(buf.type, MemRefType)
        return self._gather_vector(scalars, buf.type.element_type)

    def _scalar_load(
        self,
        buf: SSAValue,
        t: MemRefType,
        idx: Sequence[Index],
        pad: SSAValue | None,
        cond: SSAValue | None,
        safe: list[bool] | None = None,
    ) -> SSAValue:
        """A load that may be out of bounds: clamp, load, select the pad (dims known to be
        in bounds are not checked)."""
        e = self.e
        if pad is None and cond is None:
            indices = [e.ssa(i) for i in idx]
            return self._once(("load", buf, *indices), buf, lambda: memref.LoadOp.get(buf, indices))
        assert pad is not None, "a conditional load has a pad"
        ok = cond
        clamped: list[SSAValue] = []
        safe = safe or [False] * len(idx)
        for i, n, known in zip(idx, t.get_shape(), safe):
            if known:
                clamped.append(e.ssa(i))
                continue
            if isinstance(i, int):
                inside = 0 <= i < n
                if not inside:
                    return pad if pad is not None else e.const(zero_attr(t.element_type))
                clamped.append(e.index(i))
                continue
            lo = e.emit(cmpi(i, e.index(0), "sge"))
            hi = e.emit(cmpi(i, e.index(n), "slt"))
            both = e.emit(arith.AndIOp(lo, hi))
            ok = both if ok is None else e.emit(arith.AndIOp(ok, both))
            clamped.append(e.emit(arith.MinSIOp(e.emit(arith.MaxSIOp(i, e.index(0))), e.index(max(n - 1, 0)))))
        if 0 in t.get_shape():
            return pad
        value = e.emit(memref.LoadOp.get(buf, clamped))
        if ok is None:
            return value
        return e.emit(arith.SelectOp(ok, value, pad))

    def _contiguous_mask(self, idx: list[SSAValue], shape: Sequence[int], safe: list[bool]) -> SSAValue:
        """Lanes of a contiguous padded load that fall inside the buffer: those in
        [clamp(-b), clamp(n - b)) for base b of the last index, none if another index is
        outside. Built from vector.create_mask (xDSL's arith.cmpi has no vector form)."""
        e = self.e
        w = self.width
        mt = vector_of(i1, w)
        b = idx[-1]

        def clamp(x: SSAValue) -> SSAValue:
            return e.emit(arith.MinSIOp(e.emit(arith.MaxSIOp(x, e.index(0))), e.index(w)))

        if safe[-1]:
            hi, lo = e.index(w), e.index(0)
        else:
            hi = clamp(e.emit(arith.SubiOp(e.index(shape[-1]), b)))
            lo = clamp(e.emit(arith.SubiOp(e.index(0), b)))
        ok: SSAValue | None = None
        for i, n, known in zip(idx[:-1], shape[:-1], safe[:-1]):
            if known:
                continue
            both = e.emit(arith.AndIOp(e.emit(cmpi(i, e.index(0), "sge")), e.emit(cmpi(i, e.index(n), "slt"))))
            ok = both if ok is None else e.emit(arith.AndIOp(ok, both))
        if ok is not None:
            hi = e.emit(arith.SelectOp(ok, hi, e.index(0)))
        upper = e.emit(vector.CreateMaskOp([hi], mt))
        if safe[-1]:
            return upper
        below = e.emit(vector.CreateMaskOp([lo], mt))
        everything = e.emit(vector.CreateMaskOp([e.index(w)], mt))
        return e.emit(arith.AndIOp(upper, e.emit(arith.XOrIOp(below, everything))))

    def _and(self, a: SSAValue | None, b: SSAValue | None) -> SSAValue | None:
        if a is None:
            return b
        if b is None:
            return a
        return self.e.emit(arith.AndIOp(a, b))


def _negate(e: Emitter, b: Index) -> Index:
    return -b if isinstance(b, int) else e.emit(arith.SubiOp(e.index(0), b))


def _scalar_only(op: Operation) -> bool:
    """Ops emitted once per lane: index casts and index arithmetic (cheap, and rare in
    vector code). Compares (of indices too: a lane's position against a row's end) and
    selects have vector forms (dialects/arith_vectors.py)."""
    if isinstance(op, arith.IndexCastOp):
        return True
    if isinstance(op, arith.CmpiOp | arith.CmpfOp | arith.SelectOp):
        return False
    return any(isinstance(v.type, IndexType) for v in [*op.operands, *op.results])


def _accepts_vectors(op: Operation) -> bool:
    """Whether xDSL's definition of the op admits these vector types (sitofp does not)."""
    try:
        op.verify_()
    except Exception:
        return False
    return True
