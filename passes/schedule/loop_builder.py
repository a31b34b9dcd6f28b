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

from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, math as mathd, memref, scf, vector
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)


def dims_only(m: AffineMap) -> tuple[AffineExpr, ...]:
    """The map's results with symbol k renamed to dimension num_dims + k, so that every
    operand (dims, then symbols) is addressed as a dimension."""
    if not m.num_symbols:
        return m.results
    return tuple(
        r.replace_dims_and_symbols(
            [AffineExpr.dimension(i) for i in range(m.num_dims)],
            [AffineExpr.dimension(m.num_dims + i) for i in range(m.num_symbols)],
        )
        for r in m.results
    )

from tessel.dialects import kernel
from tessel.passes.schedule.schedule import Loop, StageSchedule

INDEX = IndexType()


def cmpi(a: SSAValue, b: SSAValue, predicate: str) -> Operation:
    """arith.cmpi whose result is a vector of i1 for vector operands (xDSL's builder
    always makes it a scalar)."""
    op = arith.CmpiOp(a, b, predicate)
    if isinstance(a.type, VectorType):
        op = arith.CmpiOp.create(operands=[a, b], result_types=[VectorType(i1, a.type.get_shape())], properties=dict(op.properties))
    return op


Range = tuple[int, int] | None


def affine_range(e: AffineExpr, ranges: list[Range]) -> Range:
    """Inclusive bounds of e when each dim d lies in ranges[d] (None: unknown)."""
    if isinstance(e, AffineDimExpr):
        return ranges[e.position] if e.position < len(ranges) else None
    if isinstance(e, AffineConstantExpr):
        return (e.value, e.value)
    assert isinstance(e, AffineBinaryOpExpr)
    a = affine_range(e.lhs, ranges)
    if e.kind is AffineBinaryOpKind.Add:
        b = affine_range(e.rhs, ranges)
        return None if a is None or b is None else (a[0] + b[0], a[1] + b[1])
    if not isinstance(e.rhs, AffineConstantExpr) or a is None:
        return None
    c = e.rhs.value
    match e.kind:
        case AffineBinaryOpKind.Mul:
            return (min(a[0] * c, a[1] * c), max(a[0] * c, a[1] * c))
        case AffineBinaryOpKind.FloorDiv:
            return (a[0] // c, a[1] // c)
        case AffineBinaryOpKind.CeilDiv:
            return (-((-a[0]) // c), -((-a[1]) // c))
        case AffineBinaryOpKind.Mod:
            return (a[0], a[1]) if 0 <= a[0] and a[1] < c else (0, c - 1)
    return None


def linear_coefficient(e: AffineExpr, dim: int) -> int | None:
    """d e / d dim when e is linear in dim (no floordiv/mod of it), else None."""
    if isinstance(e, AffineDimExpr):
        return 1 if e.position == dim else 0
    if isinstance(e, AffineConstantExpr):
        return 0
    assert isinstance(e, AffineBinaryOpExpr)
    lhs, rhs = linear_coefficient(e.lhs, dim), linear_coefficient(e.rhs, dim)
    if lhs is None or rhs is None:
        return None
    match e.kind:
        case AffineBinaryOpKind.Add:
            return lhs + rhs
        case AffineBinaryOpKind.Mul:
            if isinstance(e.rhs, AffineConstantExpr):
                return lhs * e.rhs.value
            if isinstance(e.lhs, AffineConstantExpr):
                return rhs * e.lhs.value
            return None
        case _:
            return 0 if lhs == 0 and rhs == 0 else None


def aligned_lane_coefficient(e: AffineExpr, dim: int, width: int) -> int | None:
    """d e / d lane for the lanes `dim = base + lane`, 0 <= lane < width, where base is a
    multiple of `width` (the vector loop starts aligned), or None when not linear.

    Unlike linear_coefficient this sees through floordiv and mod by multiples of the
    width: the lanes of `(dim + R) floordiv c` are equal and those of `(dim + R) mod c`
    consecutive when R is a multiple of the width, which is what blocked layouts index
    with (x[n floordiv 16, k, n mod 16] is a contiguous vector)."""

    def walk(x: AffineExpr) -> tuple[int, bool] | None:
        # (coefficient of the lane, whether the rest is a known multiple of width)
        if isinstance(x, AffineDimExpr):
            return (1, True) if x.position == dim else (0, False)
        if isinstance(x, AffineConstantExpr):
            return 0, x.value % width == 0
        assert isinstance(x, AffineBinaryOpExpr)
        a = walk(x.lhs)
        if a is None:
            return None
        if x.kind is AffineBinaryOpKind.Add:
            b = walk(x.rhs)
            return None if b is None else (a[0] + b[0], a[1] and b[1])
        if not isinstance(x.rhs, AffineConstantExpr):
            return None
        c = x.rhs.value
        if x.kind is AffineBinaryOpKind.Mul:
            return a[0] * c, a[1] or c % width == 0
        if c == 1 and x.kind in (AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.Mod):
            return a if x.kind is AffineBinaryOpKind.FloorDiv else (0, True)
        if a[0] == 0:
            return 0, False
        if a[0] != 1 or not a[1] or c <= 0 or c % width:
            return None
        if x.kind is AffineBinaryOpKind.FloorDiv:
            return 0, False
        if x.kind is AffineBinaryOpKind.Mod:
            return 1, True
        return None

    result = walk(e)
    return None if result is None else result[0]


@dataclass
class Emitter:
    """Appends ops to the current block; folds index arithmetic on constants."""

    block: Block
    consts: dict[tuple, SSAValue] = field(default_factory=dict)

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def index(self, value: int) -> SSAValue:
        return self.const(IntegerAttr(value, INDEX))

    def const(self, attr: Attribute) -> SSAValue:
        key = (id(self.block), str(attr))
        if key not in self.consts:
            self.consts[key] = self.emit(arith.ConstantOp(attr))
        return self.consts[key]

    # index arithmetic on int | SSAValue, folding constants
    def add(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0:
            return b
        if b == 0:
            return a
        return self.emit(arith.AddiOp(self.ssa(a), self.ssa(b)))

    def mul(self, a, c: int):
        if isinstance(a, int):
            return a * c
        if c == 1:
            return a
        if c == 0:
            return 0
        return self.emit(arith.MuliOp(a, self.index(c)))

    def floordiv(self, a, c: int):
        if isinstance(a, int):
            return a // c
        return a if c == 1 else self.emit(arith.FloorDivSIOp(a, self.index(c)))

    def ceildiv(self, a, c: int):
        if isinstance(a, int):
            return -((-a) // c)
        return a if c == 1 else self.emit(arith.CeilDivSIOp(a, self.index(c)))

    def mod(self, a, c: int):
        if isinstance(a, int):
            return a % c
        q = self.floordiv(a, c)
        return self.emit(arith.SubiOp(a, self.ssa(self.mul(q, c))))

    def ssa(self, a) -> SSAValue:
        return self.index(a) if isinstance(a, int) else a

    def affine(self, e: AffineExpr, dims: list, ranges: list[Range] | None = None) -> int | SSAValue:
        """e as index arithmetic; with `ranges` (bounds of the dims), divisions of values
        known to be non-negative are unsigned (shifts and masks for powers of two)."""
        if isinstance(e, AffineDimExpr):
            return dims[e.position]
        if isinstance(e, AffineConstantExpr):
            return e.value
        assert isinstance(e, AffineBinaryOpExpr)
        lhs = self.affine(e.lhs, dims, ranges)
        if e.kind is AffineBinaryOpKind.Add:
            return self.add(lhs, self.affine(e.rhs, dims, ranges))
        rhs = e.rhs
        if e.kind is AffineBinaryOpKind.Mul:
            if isinstance(rhs, AffineConstantExpr):
                return self.mul(lhs, rhs.value)
            other = self.affine(rhs, dims, ranges)
            if isinstance(lhs, int):
                return self.mul(other, lhs)
            if isinstance(other, int):
                return self.mul(lhs, other)
            return self.emit(arith.MuliOp(lhs, other))
        assert isinstance(rhs, AffineConstantExpr), "affine divisors are constants"
        bounds = affine_range(e.lhs, ranges) if ranges is not None else None
        if bounds is not None and bounds[0] >= 0 and not isinstance(lhs, int) and e.kind is not AffineBinaryOpKind.CeilDiv:
            if rhs.value == 1:
                return lhs if e.kind is AffineBinaryOpKind.FloorDiv else 0
            cls = arith.DivUIOp if e.kind is AffineBinaryOpKind.FloorDiv else arith.RemUIOp
            return self.emit(cls(lhs, self.index(rhs.value)))
        return {
            AffineBinaryOpKind.FloorDiv: self.floordiv,
            AffineBinaryOpKind.CeilDiv: self.ceildiv,
            AffineBinaryOpKind.Mod: self.mod,
        }[e.kind](lhs, rhs.value)


class StageLowering:
    """One stage + schedule -> the body of a stage function (args: buffers..., lo, hi)."""

    def __init__(self, op: kernel.ComputeOp, schedule: StageSchedule, buffers: dict[SSAValue, SSAValue], lo: SSAValue, hi: SSAValue):
        schedule.validate(op)
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

    # ------------------------------------------------------------------ loop nest

    def build(self, block: Block) -> None:
        e = Emitter(block)
        tile_start = self.s.acc_at if self.op.reduce_count and self.s.acc_at is not None else None
        outer = self.s.loops if tile_start is None else self.s.loops[:tile_start]
        if tile_start is None and self.op.reduce_count:
            # scalar accumulation: reductions innermost, one output element at a time
            outer = [l for l in self.s.loops if l.axis < self.k]
        self._nest(e, outer, 0, {}, lambda e2, vars_: self._inner(e2, vars_, tile_start))

    def _nest(self, e: Emitter, loops: list[Loop], i: int, vars_: dict[int, object], inner) -> None:
        if i == len(loops) or loops[i].kind == "vector":
            inner(e, vars_)
            return
        loop = loops[i]
        bound = self._bound(e, loop, vars_)
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
                e.emit(scf.IfOp(cond, [], Region(then)))
            return
        if loop.kind == "parallel":
            lo, hi = self.lo, self.hi
        else:
            lo, hi = e.index(0), e.ssa(bound)
        body = Block(arg_types=[INDEX])
        body.args[0].name_hint = self.op.axis_names[loop.axis]
        self._nest(Emitter(body, {}), loops, i + 1, {**vars_, id(loop): body.args[0]}, inner)
        body.add_op(scf.YieldOp())
        e.emit(scf.ForOp(lo, hi, e.index(1), [], Region(body)))

    def _bound(self, e: Emitter, loop: Loop, vars_: dict[int, object]):
        """Trip count of `loop` here: its extent, or less in the tail of its axis."""
        if self._divides(loop) or any(l.clamp for l in self.s.loops if l.axis == loop.axis):
            return loop.extent
        n = self.extents[loop.axis]
        base = 0
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

    def axis_values(self, e: Emitter, vars_: dict[int, object]) -> list:
        values: list = []
        for axis in range(len(self.extents)):
            total = 0
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

    def _inner(self, e: Emitter, vars_: dict[int, object], tile_start: int | None) -> None:
        if not self.op.reduce_count:
            self._store(e, vars_, lambda ee, axes, mask: self._body(ee, axes, mask))
            return
        if tile_start is None:
            self._scalar_reduction(e, vars_)
        else:
            self._tiled_reduction(e, vars_, tile_start)

    def _scalar_reduction(self, e: Emitter, vars_: dict[int, object]) -> None:
        red = [l for l in self.s.loops if l.axis >= self.k]
        acc_t = self.op.init.get_type()  # type: ignore[union-attr]
        init = e.const(self.op.init)  # type: ignore[arg-type]
        result = self._reduce_loops(e, red, 0, vars_, init, acc_t)
        axes = self.axis_values(e, vars_)
        value = self._then(e, axes, result, None)
        idx = [e.ssa(a) for a in axes[: self.k]]
        e.emit(memref.StoreOp.get(value, self._buf(self.op.out), idx))

    def _reduce_loops(self, e: Emitter, loops: list[Loop], i: int, vars_, acc: SSAValue, acc_t: Attribute) -> SSAValue:
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
        result = self._reduce_loops(inner, loops, i + 1, {**vars_, id(loop): body.args[0]}, body.args[1], acc_t)
        body.add_op(scf.YieldOp(result))
        bound = self._bound(e, loop, vars_)
        for_op = scf.ForOp(e.index(0), e.ssa(bound), e.index(1), [acc], Region(body))
        e.emit(for_op)
        return for_op.results[0]

    def _tiled_reduction(self, e: Emitter, vars_: dict[int, object], tile_start: int) -> None:
        """acc[tile] = init; for reduction loops: for tile: acc += term; for tile: store."""
        inner = self.s.loops[tile_start:]
        red = [l for l in inner if l.axis >= self.k]
        tile = [l for l in inner if l.axis < self.k and l.kind != "vector"]
        acc_t = self.op.init.get_type()  # type: ignore[union-attr]
        lanes = self.width
        shape = [l.extent for l in tile] or [1]
        slot_t = VectorType(acc_t, [lanes]) if lanes > 1 else acc_t
        acc = e.emit(memref.AllocaOp.get(slot_t, shape=shape))
        init = e.const(self.op.init)  # type: ignore[arg-type]
        if lanes > 1:
            init = e.emit(vector.BroadcastOp(init, slot_t))  # type: ignore[arg-type]

        def slot(ee: Emitter, tvars: dict[int, object]) -> list[SSAValue]:
            return [ee.ssa(tvars[id(l)]) for l in tile] or [ee.index(0)]

        self._tile(e, tile, 0, vars_, lambda ee, tv: ee.emit(memref.StoreOp.get(init, acc, slot(ee, tv))))

        def update(ee: Emitter, tv: dict[int, object]) -> None:
            axes = self.axis_values(ee, tv)
            mask = self._lane_mask(ee, tv)
            term = self._body(ee, axes, mask)
            current = ee.emit(memref.LoadOp.get(acc, slot(ee, tv)))
            ee.emit(memref.StoreOp.get(self._combine(ee, current, term), acc, slot(ee, tv)))

        def reduction_nest(ee: Emitter, rv: dict[int, object], j: int = 0) -> None:
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
            reduction_nest(Emitter(body, {}), {**rv, id(loop): body.args[0]}, j + 1)
            body.add_op(scf.YieldOp())
            ee.emit(scf.ForOp(ee.index(0), ee.ssa(self._bound(ee, loop, rv)), ee.index(1), [], Region(body)))

        reduction_nest(e, vars_)

        def store(ee: Emitter, tv: dict[int, object]) -> None:
            value = ee.emit(memref.LoadOp.get(acc, slot(ee, tv)))
            self._store(ee, tv, lambda e3, axes, mask: self._then(e3, axes, value, mask))

        self._tile(e, tile, 0, vars_, store)

    def _tile(self, e: Emitter, tile: list[Loop], i: int, vars_: dict[int, object], fn) -> None:
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
                e.emit(scf.IfOp(cond, [], Region(then)))
            return
        body = Block(arg_types=[INDEX])
        self._tile(Emitter(body, {}), tile, i + 1, {**vars_, id(loop): body.args[0]}, fn)
        body.add_op(scf.YieldOp())
        e.emit(scf.ForOp(e.index(0), e.ssa(bound), e.index(1), [], Region(body)))

    # ------------------------------------------------------------------ lanes

    def _lane_mask(self, e: Emitter, vars_: dict[int, object]) -> SSAValue | None:
        """vector<W x i1> of the lanes inside the axis, when the vector loop has a tail."""
        if self.vec is None:
            return None
        bound = self._bound(e, self.vec, vars_)
        if isinstance(bound, int) and bound >= self.width:
            return None
        return e.emit(vector.CreateMaskOp([e.ssa(bound)], VectorType(i1, [self.width])))

    def _store(self, e: Emitter, vars_: dict[int, object], value_fn) -> None:
        vars_ = dict(vars_)
        if self.vec is not None:
            vars_[id(self.vec)] = 0
        axes = self.axis_values(e, vars_)
        mask = self._lane_mask(e, vars_)
        value = value_fn(e, axes, mask)
        idx = [e.ssa(a) for a in axes[: self.k]]
        out = self._buf(self.op.out)
        if self.width == 1:
            e.emit(memref.StoreOp.get(value, out, idx))
            return
        value = self._as_vector(e, value)
        contiguous = self.vec.axis == self.k - 1  # type: ignore[union-attr]
        if contiguous and mask is None:
            e.emit(vector.StoreOp(value, out, idx))
        elif contiguous:
            e.emit(vector.MaskedStoreOp(out, idx, mask, value))
        else:
            for lane in range(self.width):
                lane_idx = list(idx)
                a = self.vec.axis  # type: ignore[union-attr]
                lane_idx[a] = e.ssa(e.add(axes[a], lane))
                scalar = e.emit(vector.ExtractOp(value, [lane], value.type.element_type))
                self._guarded_lane(e, mask, lane, lambda ee, s=scalar, li=lane_idx: ee.emit(memref.StoreOp.get(s, out, li)))

    def _guarded_lane(self, e: Emitter, mask, lane: int, fn) -> None:
        if mask is None:
            fn(e)
            return
        bit = e.emit(vector.ExtractOp(mask, [lane], mask.type.element_type))
        then = Block()
        fn(Emitter(then, e.consts))
        then.add_op(scf.YieldOp())
        e.emit(scf.IfOp(bit, [], Region(then)))

    def _as_vector(self, e: Emitter, value: SSAValue) -> SSAValue:
        if self.width > 1 and not isinstance(value.type, VectorType):
            return e.emit(vector.BroadcastOp(value, VectorType(value.type, [self.width])))
        return value

    def _buf(self, v: SSAValue) -> SSAValue:
        return self.buffers.get(v, v)

    # ------------------------------------------------------------------ regions

    def _combine(self, e: Emitter, acc: SSAValue, term: SSAValue) -> SSAValue:
        if isinstance(acc.type, VectorType):
            term = self._as_vector(e, term)
        floating = not isinstance(self.op.init.get_type(), IntegerType)  # type: ignore[union-attr]
        kind = self.op.combiner
        if floating:
            cls = {"add": arith.AddfOp, "mul": arith.MulfOp, "max": arith.MaximumfOp, "min": arith.MinimumfOp}[kind]  # type: ignore[index]
            return e.emit(cls(acc, term, flags=arith.FastMathFlagsAttr(["contract"])) if kind in ("add", "mul") else cls(acc, term))
        cls = {"add": arith.AddiOp, "mul": arith.MuliOp, "max": arith.MaxSIOp, "min": arith.MinSIOp,
               "umax": arith.MaxUIOp, "umin": arith.MinUIOp}[kind]  # type: ignore[index]  # fmt: skip
        return e.emit(cls(acc, term))

    def _body(self, e: Emitter, axes: list, mask: SSAValue | None) -> SSAValue:
        return RegionCloner(self, e, axes, mask).run(self.op.body.block, list(axes))

    def _then(self, e: Emitter, axes: list, acc: SSAValue, mask: SSAValue | None) -> SSAValue:
        if not self.op.then.blocks:
            return acc
        return RegionCloner(self, e, axes, mask).run(self.op.then.block, [*axes[: self.k], acc])


class RegionCloner:
    """Re-emits a compute region's ops at one point of the loop nest: index block args are
    the axis values there, lane-dependent values become vectors."""

    def __init__(self, stage: StageLowering, e: Emitter, axes: list, mask: SSAValue | None):
        self.stage = stage
        self.e = e
        self.axes = axes
        self.mask = mask
        self.vec_axis = stage.vec.axis if stage.vec is not None else None
        self.width = stage.width

    def run(self, block: Block, args: list) -> SSAValue:
        env: dict[SSAValue, object] = {}
        self.lanes: set[SSAValue] = set()
        for i, (arg, value) in enumerate(zip(block.args, args)):
            env[arg] = value
            if i < len(self.axes) and i == self.vec_axis:
                self.lanes.add(arg)
            if isinstance(value, SSAValue) and isinstance(value.type, VectorType):
                self.lanes.add(arg)
        self.block_args = list(block.args)
        for op in block.ops:
            if isinstance(op, kernel.YieldOp):
                return self.e.ssa(env[op.values[0]]) if isinstance(env[op.values[0]], int) else env[op.values[0]]  # type: ignore[return-value]
            self._op(op, env)
        raise AssertionError("region without kernel.yield")

    def _varies(self, v: SSAValue) -> bool:
        return v in self.lanes

    def _op(self, op: Operation, env: dict[SSAValue, object]) -> None:
        e = self.e
        if isinstance(op, affine.LoadOp | kernel.LoadOp):
            env[op.results[0]] = self._load(op, env)
            return
        if isinstance(op, memref.LoadOp):
            env[op.results[0]] = self._memref_load(op, env)
            return
        if isinstance(op, affine.ApplyOp):
            dims = [env[v] for v in op.mapOperands]
            if any(self._varies(v) for v in op.mapOperands):
                env[op.result] = self._lane_index(dims_only(op.map.data)[0], op.mapOperands, env)
                self.lanes.add(op.result)
            else:
                env[op.result] = e.affine(dims_only(op.map.data)[0], dims)
            return
        if isinstance(op, arith.ConstantOp):
            env[op.result] = e.const(op.value)
            return
        varying = any(self._varies(v) for v in op.operands)
        if varying and _scalar_only(op):
            env[op.results[0]] = self._per_lane(op, env)
            self.lanes.add(op.results[0])
            return
        operands = []
        for v in op.operands:
            value = env[v]
            value = e.ssa(value) if isinstance(value, int) else value
            if varying and not (isinstance(value, SSAValue) and isinstance(value.type, VectorType)):
                value = e.emit(vector.BroadcastOp(value, VectorType(value.type, [self.width])))
            operands.append(value)
        result_types = [VectorType(r.type, [self.width]) if varying else r.type for r in op.results]
        clone = op.__class__.create(
            operands=operands, result_types=result_types, properties=dict(op.properties), attributes=dict(op.attributes)
        )
        if varying and not _accepts_vectors(clone):
            env[op.results[0]] = self._per_lane(op, env)
            self.lanes.add(op.results[0])
            return
        if isinstance(clone, arith.MulfOp | arith.AddfOp) and self.stage.op.combiner == "add":
            clone.properties["fastmath"] = arith.FastMathFlagsAttr(["contract"])
        e.emit(clone)
        for r, new in zip(op.results, clone.results):
            env[r] = new
            if varying:
                self.lanes.add(r)

    def _per_lane(self, op: Operation, env: dict[SSAValue, object]) -> SSAValue:
        """An op xDSL only has in scalar form (cmpi, cmpf, select), once per lane."""
        e = self.e
        scalars = []
        for lane in range(self.width):
            operands = []
            for v in op.operands:
                value = env[v]
                value = e.ssa(value) if isinstance(value, int) else value
                if isinstance(value.type, VectorType):
                    value = e.emit(vector.ExtractOp(value, [lane], value.type.element_type))
                operands.append(value)
            clone = op.__class__.create(operands=operands, result_types=[r.type for r in op.results],
                                        properties=dict(op.properties), attributes=dict(op.attributes))  # fmt: skip
            scalars.append(e.emit(clone))
        return self._gather_vector(scalars, op.results[0].type)

    # ------------------------------------------------------------------ loads

    def _ranges(self, operands) -> list[Range]:
        """Bounds of index operands that are axes of the stage: [0, extent - 1]."""
        out: list[Range] = []
        for v in operands:
            if v in self.block_args and self.block_args.index(v) < len(self.stage.extents):
                n = self.stage.extents[self.block_args.index(v)]
                out.append((0, max(n - 1, 0)))
            else:
                out.append(None)
        return out

    def _indices(self, exprs, operands, env) -> list:
        dims = [env[v] for v in operands]
        ranges = self._ranges(operands)
        return [self.e.affine(x, dims, ranges) for x in exprs]

    def _in_bounds(self, exprs, operands, shape) -> list[bool]:
        """Per index: provably inside [0, n) for every point of the stage's domain."""
        ranges = self._ranges(operands)
        result = []
        for x, n in zip(exprs, shape):
            r = affine_range(x, ranges)
            result.append(r is not None and r[0] >= 0 and r[1] < n)
        return result

    def _lane_offsets(self, exprs, operands) -> list[int | None]:
        """Per index: its change per lane (None: not linear in the lane)."""
        lane_dims = [i for i, v in enumerate(operands) if self._varies(v)]
        if self.stage.aligned and len(lane_dims) == 1 and self._is_vector_axis(operands[lane_dims[0]]):
            return [aligned_lane_coefficient(x, lane_dims[0], self.width) for x in exprs]
        coeffs = []
        for x in exprs:
            c = 0
            for d in lane_dims:
                dc = linear_coefficient(x, d)
                if dc is None:
                    c = None
                    break
                c += dc
            coeffs.append(c)
        return coeffs

    def _is_vector_axis(self, v: SSAValue) -> bool:
        return v in self.block_args and self.block_args.index(v) == self.vec_axis

    def _lane_index(self, expr, operands, env) -> SSAValue:
        """A vector<W x index> of an affine index that depends on the lane."""
        e = self.e
        lanes = []
        for lane in range(self.width):
            dims = [self._lane_value(v, env, lane) for v in operands]
            lanes.append(e.ssa(e.affine(expr, dims)))
        return self._gather_vector(lanes, INDEX)

    def _lane_value(self, v: SSAValue, env, lane: int):
        value = env[v]
        if not self._varies(v):
            return value
        if v in self.block_args and self.block_args.index(v) == self.vec_axis:
            return self.e.add(value, lane)
        return self.e.emit(vector.ExtractOp(value, [lane], value.type.element_type))

    def _gather_vector(self, scalars: list[SSAValue], element: Attribute) -> SSAValue:
        e = self.e
        vt = VectorType(element, [self.width])
        result = e.emit(vector.BroadcastOp(scalars[0], vt))
        for lane, s in enumerate(scalars[1:], start=1):
            result = e.emit(vector.InsertOp(s, result, [lane]))
        return result

    def _load(self, op, env) -> SSAValue:
        e = self.e
        buf = self.stage._buf(op.memref)  # type: ignore[attr-defined]
        t = buf.type
        assert isinstance(t, MemRefType)
        exprs = dims_only(op.map.data)
        operands = list(op.indices)
        padded = isinstance(op, kernel.LoadOp)
        safe = self._in_bounds(exprs, operands, t.get_shape())
        if padded and op.cond is None and all(safe):
            padded = False  # the padding is never read
        pad = e.const(op.pad) if padded else None
        cond = env.get(op.cond) if padded and op.cond is not None else None
        coeffs = self._lane_offsets(exprs, operands) if self.width > 1 else [0] * len(exprs)
        uniform = all(c == 0 for c in coeffs) and not (cond is not None and isinstance(cond, SSAValue) and isinstance(cond.type, VectorType))
        if uniform:
            idx = self._indices(exprs, operands, env)
            return self._scalar_load(buf, t, idx, pad, cond, safe)
        self.lanes.add(op.results[0])
        contiguous = coeffs[-1] == 1 and all(c == 0 for c in coeffs[:-1]) and cond is None
        if contiguous:
            idx = [e.ssa(i) for i in self._indices(exprs, operands, env)]
            vt = VectorType(t.element_type, [self.width])
            if not padded and self.mask is None:
                return e.emit(vector.LoadOp(buf, idx, vt))
            mask = self._contiguous_mask(idx, t.get_shape(), safe) if padded else None
            mask = self._and(mask, self.mask)
            passthru = e.emit(vector.BroadcastOp(pad if pad is not None else e.const(_zero(t.element_type)), vt))
            return e.emit(vector.MaskedLoadOp(buf, idx, mask, passthru))
        scalars = []
        for lane in range(self.width):
            dims = [self._lane_value(v, env, lane) for v in operands]
            idx = [e.affine(x, dims) for x in exprs]
            lane_cond = cond
            if isinstance(cond, SSAValue) and isinstance(cond.type, VectorType):
                lane_cond = e.emit(vector.ExtractOp(cond, [lane], cond.type.element_type))
            if self.mask is not None and not padded:
                pad = e.const(_zero(t.element_type))
                bit = e.emit(vector.ExtractOp(self.mask, [lane], self.mask.type.element_type))
                lane_cond = bit if lane_cond is None else e.emit(arith.AndIOp(lane_cond, bit))
            scalars.append(self._scalar_load(buf, t, idx, pad, lane_cond, safe))
        return self._gather_vector(scalars, t.element_type)

    def _memref_load(self, op: memref.LoadOp, env) -> SSAValue:
        e = self.e
        buf = self.stage._buf(op.memref)
        values = [env[v] for v in op.indices]
        if not any(self._varies(v) for v in op.indices):
            return e.emit(memref.LoadOp.get(buf, [e.ssa(v) for v in values]))
        self.lanes.add(op.results[0])
        scalars = []
        for lane in range(self.width):
            idx = [e.ssa(self._lane_value(v, env, lane)) for v in op.indices]
            scalars.append(e.emit(memref.LoadOp.get(buf, idx)))
        return self._gather_vector(scalars, buf.type.element_type)  # type: ignore[attr-defined]

    def _scalar_load(self, buf, t: MemRefType, idx: list, pad, cond, safe: list[bool] | None = None) -> SSAValue:
        """A load that may be out of bounds: clamp, load, select the pad (dims known to be
        in bounds are not checked)."""
        e = self.e
        if pad is None and cond is None:
            return e.emit(memref.LoadOp.get(buf, [e.ssa(i) for i in idx]))
        ok = cond
        clamped = []
        safe = safe or [False] * len(idx)
        for i, n, known in zip(idx, t.get_shape(), safe):
            if known:
                clamped.append(e.ssa(i))
                continue
            if isinstance(i, int):
                inside = 0 <= i < n
                if not inside:
                    return pad if pad is not None else e.const(_zero(t.element_type))
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

    def _contiguous_mask(self, idx: list[SSAValue], shape, safe: list[bool]) -> SSAValue:
        """Lanes of a contiguous padded load that fall inside the buffer: those in
        [clamp(-b), clamp(n - b)) for base b of the last index, none if another index is
        outside. Built from vector.create_mask (xDSL's arith.cmpi has no vector form)."""
        e = self.e
        w = self.width
        mt = VectorType(i1, [w])
        b = idx[-1]

        def clamp(x: SSAValue) -> SSAValue:
            return e.emit(arith.MinSIOp(e.emit(arith.MaxSIOp(x, e.index(0))), e.index(w)))

        if safe[-1]:
            hi, lo = e.index(w), e.index(0)
        else:
            hi = clamp(e.emit(arith.SubiOp(e.index(shape[-1]), b)))
            lo = clamp(e.emit(arith.SubiOp(e.index(0), b)))
        ok = None
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

    def _and(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return self.e.emit(arith.AndIOp(a, b))


def _scalar_only(op: Operation) -> bool:
    """Ops emitted once per lane: those xDSL has only in scalar form (compares, selects,
    index casts) and index arithmetic (cheap, and rare in vector code)."""
    if isinstance(op, arith.CmpiOp | arith.CmpfOp | arith.SelectOp | arith.IndexCastOp):
        return True
    return any(isinstance(v.type, IndexType) for v in [*op.operands, *op.results])


def _accepts_vectors(op: Operation) -> bool:
    """Whether xDSL's definition of the op admits these vector types (sitofp does not)."""
    try:
        op.verify_()
    except Exception:
        return False
    return True


def _zero(t: Attribute) -> Attribute:
    from xdsl.dialects.builtin import FloatAttr

    if isinstance(t, IntegerType | IndexType):
        return IntegerAttr(0, t)
    return FloatAttr(0.0, t)  # type: ignore[arg-type]
