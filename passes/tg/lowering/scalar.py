"""Scalar code for one element of a tg value, written into a kernel.compute region.

`ElementBuilder.value(v, idx)` emits the arith/math ops that compute element `idx` of the
tg tensor `v` (an affine index over the region's axes), inlining every injective tg op of
the fused group down to loads of the group's inputs. This is TVM's compute_inline of
injective stages: broadcasts drop or zero indices, transposes permute them, reshapes
delinearize them (floordiv/mod), slices scale and shift them, pads guard them.

Values are carried in a *compute type*: f16 and bf16 are widened to f32 (the reference
computes in wide precision and rounds once), integers are signless (their signedness,
which MLIR's arith ops do not carry, picks the op: divsi or divui, extsi or extui).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.dialects import affine, arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    BFloat16Type,
    Float16Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    f32,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from tessel.dialects import kernel, tg
from tessel.dialects.tg.base import floating, integer, ints, string
from tessel.ir import dtypes
from tessel.passes.tg.lowering.index_maps import (
    Index,
    IndexElem,
    affine_n,
    affine_op,
    broadcast_index,
    delinear,
    expr,
    linear,
    minus,
    times_plus,
)

# --------------------------------------------------------------------------- types


def storage_type(element: Attribute) -> Attribute:
    """The element type of a kernel memref: integers become signless."""
    if isinstance(element, IntegerType) and element.signedness.data != Signedness.SIGNLESS:
        return IntegerType(element.width.data)
    return element


def compute_type(element: Attribute) -> Attribute:
    if isinstance(element, Float16Type | BFloat16Type):
        return f32
    return storage_type(element)


def is_unsigned(element: Attribute) -> bool:
    return isinstance(element, IntegerType) and element.signedness.data == Signedness.UNSIGNED


def float_type(t: Attribute) -> AnyFloat:
    """A compute or storage type known to be a float (dtypes.is_float holds)."""
    assert isinstance(t, AnyFloat), t
    return t


def int_type(t: Attribute) -> IntegerType:
    """A compute or storage type known to be an integer (not a float, not index)."""
    assert isinstance(t, IntegerType), t
    return t


def number(attr: Attribute | None) -> int | float:
    """The value of a scalar property: an integer or float attribute, by the op's verifier."""
    assert isinstance(attr, IntegerAttr | FloatAttr), attr
    return attr.value.data


def typed_attr(value: float | int | bool, t: Attribute) -> IntegerAttr | FloatAttr:
    """A scalar attribute of compute/storage type `t` (NaN/inf allowed for floats)."""
    if dtypes.is_float(t):
        return FloatAttr(float(value), float_type(t))
    if isinstance(t, IndexType):
        return IntegerAttr(int(value), t)
    assert isinstance(t, IntegerType)
    width = t.width.data
    v = int(value)
    if width == 1:
        return IntegerAttr(1 if v else 0, t)
    v &= (1 << width) - 1
    if v >= 1 << (width - 1):
        v -= 1 << width  # signless attrs hold the two's-complement value
    return IntegerAttr(v, t)


def lowest(element: Attribute) -> float | int:
    """The identity of max for a tg element type: -inf, the smallest integer, or False."""
    if dtypes.is_float(element):
        return -math.inf
    if dtypes.is_bool(element):
        return 0
    return 0 if is_unsigned(element) else -(1 << (int_type(element).width.data - 1))


# --------------------------------------------------------------------------- builder


class ElementBuilder:
    """Emits scalar ops at the end of `block`, whose first arguments are the axes.

    An index element is an AffineExpr over the axes, or an SSA index value where the
    mapping is not affine (clamps and reflections of non-constant pads)."""

    def __init__(self, block: Block, num_axes: int, buffers: dict[SSAValue, SSAValue]):
        self.block = block
        self.axes = list(block.args[:num_axes])
        self.buffers = buffers  # tg value -> memref holding it
        self.bound: dict[SSAValue, tuple[tuple, SSAValue]] = {}
        self.guarded = 0  # > 0: reads may be out of bounds and must not fault
        self.guard_pad: float | int = 0  # what a guarded read gives out of bounds
        self._cache: dict[tuple, SSAValue] = {}

    # ------------------------------------------------------------------ emission

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def const(self, value: float | int | bool, t: Attribute) -> SSAValue:
        key = ("const", repr(value), t)
        if key not in self._cache:
            self._cache[key] = self.emit(arith.ConstantOp(typed_attr(value, t)))
        return self._cache[key]

    def index_map(self, idx: Sequence[AffineExpr]) -> AffineMap:
        return AffineMap(len(self.axes), 0, tuple(idx))

    def ssa(self, e: IndexElem) -> SSAValue:
        """An index element as an SSA index value."""
        if isinstance(e, SSAValue):
            return e
        key = ("apply", e)
        if key not in self._cache:
            self._cache[key] = self.emit(affine.ApplyOp(self.axes, AffineMapAttr(self.index_map([e]))))
        return self._cache[key]

    def load(
        self,
        memref: SSAValue,
        idx: Index,
        element: Attribute,
        pad: float | int | None = None,
        when: SSAValue | None = None,
    ) -> SSAValue:
        """Element `idx` of a buffer, widened to the compute type; `pad` outside it or where
        `when` is false (`guard_pad` when the builder is guarded and no pad is given, else 0)."""
        if pad is None and (self.guarded or when is not None):
            pad = self.guard_pad if self.guarded else 0
        key = ("load", memref, _key(idx), pad, id(when))
        if key in self._cache:
            return self._cache[key]
        st = storage_type(element)
        if any(isinstance(e, SSAValue) for e in idx):
            indices = [self.ssa(e) for e in idx]
            if pad is None:
                raw = self.emit(memref_load(memref, indices))
            else:
                identity = AffineMap(len(indices), 0, tuple(AffineExpr.dimension(i) for i in range(len(indices))))
                raw = self.emit(
                    kernel.LoadOp.build(
                        operands=[memref, indices, [when] if when else []],
                        result_types=[st],
                        properties={"map": AffineMapAttr(identity), "pad": typed_attr(pad, st)},
                    )
                )
        elif pad is None:
            raw = self.emit(affine.LoadOp(memref, self.axes, AffineMapAttr(self.index_map([expr(e) for e in idx])), st))
        else:
            raw = self.emit(
                kernel.LoadOp.build(
                    operands=[memref, self.axes, [when] if when else []],
                    result_types=[st],
                    properties={
                        "map": AffineMapAttr(self.index_map([expr(e) for e in idx])),
                        "pad": typed_attr(pad, st),
                    },
                )
            )
        value = self.widen(raw, element)
        self._cache[key] = value
        return value

    def widen(self, raw: SSAValue, element: Attribute) -> SSAValue:
        if compute_type(element) != storage_type(element):
            return self.emit(arith.ExtFOp(raw, compute_type(element)))
        return raw

    def narrow(self, value: SSAValue, storage: Attribute) -> SSAValue:
        """From a compute type to a memref's element type (f32 carried for f16 or bf16)."""
        if value.type != storage:
            return self.emit(arith.TruncFOp(value, storage))
        return value

    def rounded(self, value: SSAValue, element: Attribute) -> SSAValue:
        """A 16-bit float value (carried in f32) rounded to its type: every tg op's result
        is a value of its type, so a chain of ops rounds where the reference rounds."""
        if isinstance(element, Float16Type | BFloat16Type) and value.type != storage_type(element):
            return self.emit(arith.ExtFOp(self.emit(arith.TruncFOp(value, storage_type(element))), value.type))
        return value

    def bind(self, v: SSAValue, idx: Index, scalar: SSAValue) -> None:
        """Element `idx` of `v` is `scalar` (the accumulator in a then region)."""
        self.bound[v] = (_key(idx), scalar)

    def in_bounds(self, idx: Index, shape: Sequence[int]) -> SSAValue | None:
        """An i1 that is true where 0 <= idx < shape (None when always true)."""
        cond: SSAValue | None = None
        for e, n in zip(idx, shape):
            i = self.ssa(e)
            for check in (
                arith.CmpiOp(i, self.const(0, IndexType()), "sge"),
                arith.CmpiOp(i, self.const(n, IndexType()), "slt"),
            ):
                c = self.emit(check)
                cond = c if cond is None else self.emit(arith.AndIOp(cond, c))
        return cond

    # ------------------------------------------------------------------ values

    def value(self, v: SSAValue, idx: Index) -> SSAValue:
        """Element `idx` of tg value `v`, in its compute type."""
        if v in self.bound and self.bound[v][0] == _key(idx):
            return self.bound[v][1]
        if v in self.buffers:
            t = v.type
            assert isinstance(t, TensorType)
            return self.load(self.buffers[v], idx, t.element_type)
        op = v.owner
        assert isinstance(op, Operation)
        key = ("value", v, _key(idx), self.guarded > 0)
        if key not in self._cache:
            inline = INLINE.get(type(op))
            if inline is None:
                raise NotImplementedError(f"{op.name} cannot be computed element-wise")
            self._cache[key] = self.rounded(inline(self, op, idx), element_of(v))
        return self._cache[key]


def _key(idx: Index) -> tuple:
    return tuple(("ssa", id(e)) if isinstance(e, SSAValue) else e for e in idx)


def memref_load(memref: SSAValue, indices: list[SSAValue]) -> Operation:
    from xdsl.dialects import memref as memref_dialect

    return memref_dialect.LoadOp.get(memref, indices)


def shape_of(v: SSAValue) -> tuple[int, ...]:
    assert isinstance(v.type, TensorType)
    return v.type.get_shape()


def element_of(v: SSAValue) -> Attribute:
    assert isinstance(v.type, TensorType)
    return v.type.element_type


# --------------------------------------------------------------------------- rules

Rule = Callable[[ElementBuilder, Operation, Index], SSAValue]
INLINE: dict[type[Operation], Rule] = {}


def rule(*op_types: type[Operation]) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for t in op_types:
            INLINE[t] = fn
        return fn

    return register


def _operands(b: ElementBuilder, op: Operation, idx: Index) -> list[SSAValue]:
    result = shape_of(op.results[0])
    return [b.value(v, broadcast_index(idx, shape_of(v), result)) for v in op.operands]


@rule(tg.AddOp, tg.SubOp, tg.MulOp)
def _arith(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x, y = _operands(b, op, idx)
    floating_ = dtypes.is_float(element_of(op.results[0]))
    kinds: dict[type[Operation], tuple[str, str]] = {
        tg.AddOp: ("AddfOp", "AddiOp"),
        tg.SubOp: ("SubfOp", "SubiOp"),
        tg.MulOp: ("MulfOp", "MuliOp"),
    }
    kind = kinds[type(op)]
    return b.emit(getattr(arith, kind[0] if floating_ else kind[1])(x, y))


@rule(tg.DivOp)
def _div(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x, y = _operands(b, op, idx)
    et = element_of(op.results[0])
    if dtypes.is_float(et):
        return b.emit(arith.DivfOp(x, y))
    t = compute_type(et)
    zero, one = b.const(0, t), b.const(1, t)
    is_zero = b.emit(arith.CmpiOp(y, zero, "eq"))
    safe = b.emit(arith.SelectOp(is_zero, one, y))  # x / 0 is 0 (the reference), never UB
    if is_unsigned(et):
        return b.emit(arith.SelectOp(is_zero, zero, b.emit(arith.DivUIOp(x, safe))))
    # MIN / -1 overflows: it wraps to MIN, like numpy
    minus_one = b.const(-1, t)
    wraps = b.emit(
        arith.AndIOp(b.emit(arith.CmpiOp(safe, minus_one, "eq")), b.emit(arith.CmpiOp(x, b.const(lowest(et), t), "eq")))
    )
    quotient = b.emit(arith.DivSIOp(x, b.emit(arith.SelectOp(wraps, one, safe))))
    quotient = b.emit(arith.SelectOp(wraps, x, quotient))
    return b.emit(arith.SelectOp(is_zero, zero, quotient))


@rule(tg.NegOp)
def _neg(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = _operands(b, op, idx)
    if dtypes.is_float(element_of(op.results[0])):
        return b.emit(arith.NegfOp(x))
    return b.emit(arith.SubiOp(b.const(0, x.type), x))


def _max(b: ElementBuilder, x: SSAValue, y: SSAValue, et: Attribute) -> SSAValue:
    if dtypes.is_float(et):
        return b.emit(arith.MaximumfOp(x, y))
    return b.emit(arith.MaxUIOp(x, y) if is_unsigned(et) else arith.MaxSIOp(x, y))


def _min(b: ElementBuilder, x: SSAValue, y: SSAValue, et: Attribute) -> SSAValue:
    if dtypes.is_float(et):
        return b.emit(arith.MinimumfOp(x, y))
    return b.emit(arith.MinUIOp(x, y) if is_unsigned(et) else arith.MinSIOp(x, y))


@rule(tg.ReluOp)
def _relu(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = _operands(b, op, idx)
    return _max(b, x, b.const(0, x.type), element_of(op.results[0]))


@rule(tg.ExpOp, tg.SqrtOp, tg.TanhOp)
def _math(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = _operands(b, op, idx)
    ops: dict[type[Operation], Callable[[SSAValue], Operation]] = {
        tg.ExpOp: mathd.ExpOp,
        tg.SqrtOp: mathd.SqrtOp,
        tg.TanhOp: mathd.TanhOp,
    }
    cls = ops[type(op)]
    return b.emit(cls(x))


@rule(tg.SigmoidOp)
def _sigmoid(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    """1 / (1 + e) for x >= 0 and e / (1 + e) below, e = exp(-|x|): e never overflows, so
    sigmoid(-91) is exp(-91)'s subnormal 3.0e-40 and not 1 / (1 + inf) = 0 (the long fuzz
    profile found the latter 3 ulps off in bfloat16)."""
    (x,) = _operands(b, op, idx)
    one = b.const(1.0, x.type)
    e = b.emit(mathd.ExpOp(b.emit(arith.NegfOp(b.emit(mathd.AbsFOp(x))))))
    r = b.emit(arith.DivfOp(one, b.emit(arith.AddfOp(one, e))))
    negative = b.emit(arith.CmpfOp(x, b.const(0.0, x.type), "olt"))
    return b.emit(arith.SelectOp(negative, b.emit(arith.MulfOp(e, r)), r))


@rule(tg.GeluOp)
def _gelu(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = _operands(b, op, idx)
    t = x.type
    half = b.const(0.5, t)
    one = b.const(1.0, t)
    if string(op.properties, "approximate", ("none", "tanh"), default="none") == "tanh":
        cube = b.emit(arith.MulfOp(x, b.emit(arith.MulfOp(x, x))))
        inner = b.emit(arith.AddfOp(x, b.emit(arith.MulfOp(b.const(0.044715, t), cube))))
        phi = b.emit(mathd.TanhOp(b.emit(arith.MulfOp(b.const(math.sqrt(2.0 / math.pi), t), inner))))
    else:
        phi = b.emit(mathd.ErfOp(b.emit(arith.MulfOp(x, b.const(1.0 / math.sqrt(2.0), t)))))
    return b.emit(arith.MulfOp(b.emit(arith.MulfOp(half, x)), b.emit(arith.AddfOp(one, phi))))


@rule(tg.ClipOp)
def _clip(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = _operands(b, op, idx)
    et = element_of(op.results[0])
    for key, combine in (("min", _max), ("max", _min)):
        bound = op.properties.get(key)
        if bound is not None:
            x = combine(b, x, b.const(number(bound), x.type), et)
    return x


@rule(tg.ShiftRightOp)
def _shift_right(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    assert isinstance(op, tg.ShiftRightOp)
    (x,) = _operands(b, op, idx)
    amount = b.const(op.amount.value.data, x.type)
    shift = arith.ShRUIOp if is_unsigned(element_of(op.results[0])) else arith.ShRSIOp
    return b.emit(shift(x, amount))


@rule(tg.BatchNormOp)
def _batch_norm(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    c = [idx[1]]
    x = b.value(op.operands[0], idx)
    scale, bias, mean, var = (b.value(v, c) for v in op.operands[1:])
    eps = b.const(floating(op.properties, "epsilon"), x.type)
    inv = b.emit(arith.DivfOp(b.const(1.0, x.type), b.emit(mathd.SqrtOp(b.emit(arith.AddfOp(var, eps))))))
    centered = b.emit(arith.SubfOp(x, mean))
    return b.emit(arith.AddfOp(b.emit(arith.MulfOp(b.emit(arith.MulfOp(centered, inv)), scale)), bias))


@rule(tg.ReshapeOp, tg.FlattenOp)
def _reshape(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    src = op.operands[0]
    return b.value(src, delinear(b, linear(b, idx, shape_of(op.results[0])), shape_of(src)))


@rule(tg.TransposeOp)
def _transpose(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    perm = ints(op.properties, "perm")
    src_idx: Index = [AffineExpr.constant(0)] * len(perm)
    for out_dim, in_dim in enumerate(perm):
        src_idx[in_dim] = idx[out_dim]
    return b.value(op.operands[0], src_idx)


@rule(tg.LayoutTransformOp)
def _layout(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    assert isinstance(op, tg.LayoutTransformOp)
    src = op.src.data
    x = op.operands[0]
    if src == "NCHW":
        c = shape_of(op.results[0])[4]
        channel = affine_op(b, idx[1], lambda e: e * c) if isinstance(idx[1], SSAValue) else idx[1] * c + idx[4]  # type: ignore[operator]
        if isinstance(channel, SSAValue):
            channel = b.emit(arith.AddiOp(channel, b.ssa(idx[4])))
        return b.value(x, [idx[0], channel, idx[2], idx[3]])
    if src == "OIHW":
        _, _, _, _, bi, bo = shape_of(op.results[0])
        o = _affine_pair(b, idx[0], bo, idx[5])
        i = _affine_pair(b, idx[1], bi, idx[4])
        return b.value(x, [o, i, idx[2], idx[3]])
    c = shape_of(x)[4]
    block = affine_op(b, idx[1], lambda e: e // c)
    inner = affine_op(b, idx[1], lambda e: e % c)
    return b.value(x, [idx[0], block, idx[2], idx[3], inner])


def _affine_pair(b: ElementBuilder, outer: IndexElem, size: int, inner: IndexElem) -> IndexElem:
    """outer * size + inner, as an affine expression when both are."""
    if isinstance(outer, SSAValue) or isinstance(inner, SSAValue):
        return b.emit(arith.AddiOp(b.ssa(affine_op(b, outer, lambda e: e * size)), b.ssa(inner)))
    return outer * size + inner


@rule(tg.SliceOp)
def _slice(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    starts, steps = ints(op.properties, "starts"), ints(op.properties, "steps")
    return b.value(
        op.operands[0],
        [affine_op(b, i, times_plus(step, start)) for i, start, step in zip(idx, starts, steps)],
    )


@rule(tg.ConcatOp)
def _concat(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    """A select chain over the pieces, each evaluated guarded (its reads may fall outside
    it, where they read zero and are not selected)."""
    axis = integer(op.properties, "axis")
    position = b.ssa(idx[axis])
    result: SSAValue | None = None
    start = sum(shape_of(v)[axis] for v in op.operands)
    for v in reversed(list(op.operands)):
        n = shape_of(v)[axis]
        start -= n
        if n == 0:
            continue
        local = list(idx)
        local[axis] = affine_op(b, idx[axis], minus(start))
        b.guarded += 1
        value = b.value(v, local)
        b.guarded -= 1
        if result is None:
            result = value
            continue
        inside = b.emit(arith.CmpiOp(position, b.const(start + n, IndexType()), "slt"))
        result = b.emit(arith.SelectOp(inside, value, result))
    assert result is not None, "concat of empty pieces has no elements"
    return result


@rule(tg.DepthToSpaceOp)
def _depth_to_space(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    assert isinstance(op, tg.DepthToSpaceOp)
    size = op.blocksize.value.data
    dcr = op.mode.data == "DCR"
    x = op.operands[0]
    blocked = len(idx) == 5
    lane = shape_of(x)[4] if blocked else 1
    out_channels = shape_of(op.results[0])[1] * lane

    def source_channel(c_out_block, lane_idx, h, w):
        c = c_out_block * lane + lane_idx if blocked else c_out_block
        phase = (h % size) * size + w % size
        return phase * out_channels + c if dcr else c * (size * size) + phase

    zero = AffineExpr.constant(0)
    elems = [idx[1], idx[4] if blocked else zero, idx[2], idx[3]]
    channel = affine_n(b, elems, source_channel)
    h = affine_op(b, idx[2], lambda e: e // size)
    w = affine_op(b, idx[3], lambda e: e // size)
    if not blocked:
        return b.value(x, [idx[0], channel, h, w])
    block = affine_op(b, channel, lambda e: e // lane)
    inner = affine_op(b, channel, lambda e: e % lane)
    return b.value(x, [idx[0], block, h, w, inner])


@rule(tg.PadOp)
def _pad(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    pads = ints(op.properties, "pads")
    assert isinstance(op, tg.PadOp)
    mode = op.mode.data
    src = op.operands[0]
    shape = shape_of(src)
    shifted = [affine_op(b, idx[d], minus(pads[d])) for d in range(len(idx))]
    if mode == "constant":
        value = op.properties.get("value")
        pad = number(value) if value is not None else 0
        if src in b.buffers:
            return b.load(b.buffers[src], shifted, element_of(src), pad=pad)
        b.guarded += 1
        inner = b.value(src, shifted)
        b.guarded -= 1
        inside = b.in_bounds(shifted, shape)
        if inside is None:
            return inner
        return b.emit(arith.SelectOp(inside, inner, b.const(pad, inner.type)))
    source = [
        _source_index(b, e, n, mode) if pads[d] or pads[d + len(idx)] else e
        for d, (e, n) in enumerate(zip(shifted, shape))
    ]
    return b.value(src, source)


def _source_index(b: ElementBuilder, e: IndexElem, n: int, mode: str) -> IndexElem:
    """Where a reflect/edge/wrap pad reads dim position e (which may lie outside [0, n))."""
    if mode == "wrap":
        return affine_op(b, e, lambda x: x % n)
    i = b.ssa(e)
    zero, last = b.const(0, IndexType()), b.const(n - 1, IndexType())
    if mode == "edge":
        return b.emit(arith.MinSIOp(b.emit(arith.MaxSIOp(i, zero)), last))
    # reflect: period 2(n-1); fold the position into [0, n-1] without repeating the edge
    if n == 1:
        return zero
    period = b.const(2 * (n - 1), IndexType())
    m = b.emit(arith.RemSIOp(i, period))
    m = b.emit(arith.SelectOp(b.emit(arith.CmpiOp(m, zero, "slt")), b.emit(arith.AddiOp(m, period)), m))
    d = b.emit(arith.SubiOp(m, last))
    absd = b.emit(arith.MaxSIOp(d, b.emit(arith.SubiOp(zero, d))))
    return b.emit(arith.SubiOp(last, absd))
