"""The meaning of kernel-level modules (after tg-to-kernel) in numpy, for differential testing.

Each kernel.compute is evaluated whole: its axes become broadcast index grids, the body's
ops become numpy operations on those grids, the terms are reduced over the reduction axes
and the then region maps the result. Integers are signless, as in the IR: each arith op
reads the bits as signed or unsigned the way the op says (divui, extui, cmpi ult...), as
the machine code will. This checks the lowering from tg independently of any code
generator, and is fast enough for the ONNX node tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from scipy import special
from xdsl.dialects import affine, arith, func, memref
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    TypeAttribute,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

from tessel.dialects.kernel import ops as kernel
from tessel.dialects.kernel.ops import ELEMENT_ATTR
from tessel.ir import dtypes
from tessel.ir.diagnostics import TesselError
from tessel.ir.predicates import CMPF_PREDICATES, CMPI_PREDICATES

_FLOAT_DTYPES: dict[type[Attribute], type] = {
    Float16Type: np.float16,
    Float32Type: np.float32,
    Float64Type: np.float64,
}


def np_type(t: Attribute) -> np.dtype:
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType):
        w = t.width.data
        return np.dtype(np.bool_) if w == 1 else np.dtype(f"int{w}")
    if isinstance(t, BFloat16Type):
        return dtypes.bfloat16()
    return np.dtype(_FLOAT_DTYPES[type(t)])


def _memref(value: SSAValue) -> MemRefType:
    """The type of a value that is a memref by construction (a function's buffer argument)."""
    t = value.type
    assert isinstance(t, MemRefType), t
    return t


def _number(attr: Attribute | None) -> IntegerAttr | FloatAttr:
    """A scalar constant the verifier has checked: arith.constant's value, a reduction's
    init, a padded load's pad."""
    assert isinstance(attr, IntegerAttr | FloatAttr), attr
    return attr


def global_array(name: str, g: memref.GlobalOp, weights: Mapping[str, np.ndarray], t: MemRefType) -> np.ndarray:
    """The value of memref.global @name as a C-ordered array of the IR's element type: its
    inline initializer, or the weight store's array (same shape, reinterpreted when only the
    signedness differs, converted otherwise)."""
    dt = np_type(t.element_type)
    if isinstance(g.initial_value, DenseIntOrFPElementsAttr):
        raw = g.initial_value.data.data
        if dt == np.bool_:
            return np.frombuffer(raw, np.int8).astype(np.bool_).reshape(t.get_shape())
        return np.frombuffer(raw, dt).reshape(t.get_shape()).copy()
    if name not in weights:
        raise TesselError(f"no data for weight @{name}")
    value = np.asarray(weights[name], order="C")
    if value.shape != tuple(t.get_shape()):
        raise TesselError(f"weight @{name} has shape {list(value.shape)}, the IR declares {list(t.get_shape())}")
    if value.dtype == dt:
        return value  # (not a copy: a weight read by many kernels is one array)
    return value.view(dt) if value.dtype.itemsize == dt.itemsize else value.astype(dt)


def unsigned(x: np.ndarray) -> np.ndarray:
    return x if x.dtype == np.bool_ else x.view(f"uint{x.dtype.itemsize * 8}")


def affine_eval(e: AffineExpr, dims: Sequence[np.ndarray], syms: Sequence[np.ndarray] = ()) -> np.ndarray:
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineSymExpr):
        return syms[e.position]
    if isinstance(e, AffineConstantExpr):
        return np.asarray(e.value, dtype=np.int64)
    assert isinstance(e, AffineBinaryOpExpr)
    a, b = affine_eval(e.lhs, dims, syms), affine_eval(e.rhs, dims, syms)
    match e.kind:
        case AffineBinaryOpKind.Add:
            return a + b
        case AffineBinaryOpKind.Mul:
            return a * b
        case AffineBinaryOpKind.FloorDiv:
            return np.floor_divide(a, b)
        case AffineBinaryOpKind.CeilDiv:
            return -np.floor_divide(-a, b)
        case AffineBinaryOpKind.Mod:
            return np.mod(a, b)
    raise NotImplementedError(e)


def _cmp(pred: int, a: np.ndarray, b: np.ndarray, is_float: bool) -> np.ndarray:
    if is_float:
        name = CMPF_PREDICATES[pred]
        if name in ("false", "true"):
            return np.full(np.broadcast(a, b).shape, name == "true")
        unordered = np.isnan(a) | np.isnan(b)
        if name == "ord":
            return ~unordered
        if name == "uno":
            return unordered
        base = {
            "eq": np.equal,
            "gt": np.greater,
            "ge": np.greater_equal,
            "lt": np.less,
            "le": np.less_equal,
            "ne": np.not_equal,
        }[name[1:]]
        with np.errstate(invalid="ignore"):
            r = base(a, b)
        return (r & ~unordered) if name[0] == "o" else (r | unordered)
    name = CMPI_PREDICATES[pred]
    if name[0] == "u":
        a, b = unsigned(np.asarray(a)), unsigned(np.asarray(b))
        name = name[1:]
    elif name[0] == "s":
        name = name[1:]
    return {
        "eq": np.equal,
        "ne": np.not_equal,
        "lt": np.less,
        "le": np.less_equal,
        "gt": np.greater,
        "ge": np.greater_equal,
    }[name](a, b)


class KernelEvaluator:
    def __init__(self, module: ModuleOp, weights: Mapping[str, np.ndarray]):
        self.module = module
        self.weights = weights
        self.funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
        self.globals = {op.sym_name.data: op for op in module.ops if isinstance(op, memref.GlobalOp)}

    # ------------------------------------------------------------------ graph level

    def run(self, inputs: Sequence[np.ndarray], entry: str = "main") -> list[np.ndarray]:
        fn = self.funcs[entry]
        args = list(fn.body.block.args)
        n_in = len(inputs)
        env: dict[SSAValue, np.ndarray] = {}
        for arg, value in zip(args, inputs):
            array = np.asarray(value, order="C")
            env[arg] = array.view(np_type(_memref(arg).element_type)) if array.dtype.kind in "iu" else array
        outputs = []
        attrs: list[Mapping[str, Attribute]] = (
            [a.data for a in fn.arg_attrs.data] if fn.arg_attrs else [{} for _ in args]
        )
        for arg, at in zip(args[n_in:], attrs[n_in:]):
            t = arg.type
            assert isinstance(t, MemRefType)
            out = np.zeros(t.get_shape(), np_type(t.element_type))
            env[arg] = out
            # memrefs hold signless integers; the port says how to read them (ui8, ...)
            element = at.get(ELEMENT_ATTR)
            wanted = dtypes.to_numpy(element) if isinstance(element, TypeAttribute) else out.dtype
            outputs.append(out.view(wanted) if wanted.itemsize == out.dtype.itemsize and wanted != out.dtype else out)
        self._run_block(fn.body.block, env)
        return outputs

    def _run_block(self, block: Block, env: dict[SSAValue, np.ndarray]) -> None:
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                return
            if isinstance(op, kernel.ComputeOp):
                self._compute(op, env)
            elif isinstance(op, func.CallOp):
                callee = self.funcs[op.callee.root_reference.data]
                inner: dict[SSAValue, np.ndarray] = dict(zip(callee.body.block.args, (env[v] for v in op.operands)))
                self._run_block(callee.body.block, inner)
            elif isinstance(op, memref.AllocOp):
                t = op.memref.type
                env[op.memref] = np.zeros(t.get_shape(), np_type(t.element_type))
            elif isinstance(op, memref.DeallocOp):
                pass
            elif isinstance(op, memref.ViewOp):
                t = op.result.type
                arena = env[op.source]
                start = int(env[op.byte_shift])
                dt = np_type(t.element_type)
                size = math.prod(t.get_shape()) * dt.itemsize
                env[op.result] = arena[start : start + size].view(dt).reshape(t.get_shape())
            elif isinstance(op, memref.GetGlobalOp):
                env[op.memref] = self._global(op.name_.root_reference.data, op.memref.type)
            elif isinstance(op, memref.CopyOp):
                np.copyto(env[op.destination], env[op.source])
            elif isinstance(op, arith.ConstantOp):
                env[op.result] = np.asarray(_number(op.value).value.data)
            else:
                raise NotImplementedError(f"kernel evaluator: {op.name}")

    def _global(self, name: str, t: MemRefType) -> np.ndarray:
        return global_array(name, self.globals[name], self.weights, t)

    # ------------------------------------------------------------------ stages

    def _compute(self, op: kernel.ComputeOp, env: dict[SSAValue, np.ndarray]) -> None:
        extents = op.domain
        n = len(extents)
        k = op.spatial_count
        if 0 in extents[:k]:
            return  # an empty output
        if 0 in extents[k:]:
            self._empty_reduction(op, env)
            return
        grids = [
            np.arange(e, dtype=np.int64).reshape([-1 if i == d else 1 for i in range(n)]) for d, e in enumerate(extents)
        ]
        local = dict(env)
        local.update(zip(op.body.block.args, grids))
        term = np.broadcast_to(self._scalar_block(op.body.block, local), extents)
        out = env[op.out]
        if op.reduce_count == 0:
            out[...] = term
            return
        init = _number(op.init).value.data
        assert op.combiner is not None, "a reduction has a combiner"
        ufunc = {
            "add": np.add,
            "mul": np.multiply,
            "max": np.maximum,
            "min": np.minimum,
            "umax": np.maximum,
            "umin": np.minimum,
        }[op.combiner]
        axes = tuple(range(k, n))
        dtype = term.dtype
        init_value = np.asarray(init).astype(dtype)
        if op.combiner in ("umax", "umin") and dtype != np.bool_:
            term, init_value = unsigned(term), unsigned(init_value.reshape(1))[0]
        with np.errstate(all="ignore"):
            acc = ufunc.reduce(term, axis=axes, initial=init_value)
        acc = acc.view(dtype) if acc.dtype != dtype and acc.dtype.itemsize == dtype.itemsize else acc.astype(dtype)
        if op.then.blocks:
            local = dict(env)
            local.update(zip(op.then.block.args, [*grids_for(extents[:k]), acc]))
            acc = np.broadcast_to(self._scalar_block(op.then.block, local), extents[:k])
        out[...] = acc

    def _empty_reduction(self, op: kernel.ComputeOp, env: dict[SSAValue, np.ndarray]) -> None:
        """Nothing to combine: every element is init, mapped by the then region."""
        k = op.spatial_count
        spatial = op.domain[:k]
        init = _number(op.init)
        acc = np.full(spatial, init.value.data, np_type(init.type))
        if op.then.blocks:
            local = dict(env)
            local.update(zip(op.then.block.args, [*grids_for(spatial), acc]))
            acc = np.broadcast_to(self._scalar_block(op.then.block, local), spatial)
        env[op.out][...] = acc

    def _scalar_block(self, block: Block, env: dict[SSAValue, np.ndarray]) -> np.ndarray:
        for op in block.ops:
            if isinstance(op, kernel.YieldOp):
                return np.asarray(env[op.values[0]])
            with np.errstate(all="ignore"):
                env[op.results[0]] = self._scalar(op, env)
        raise AssertionError("block without kernel.yield")

    def _scalar(self, op: Operation, env: dict[SSAValue, np.ndarray]) -> np.ndarray:  # noqa: C901 - one case per op
        if not op.results:
            raise NotImplementedError(f"kernel evaluator: {op.name}")
        v = [env[o] for o in op.operands]
        rt = op.results[0].type
        if isinstance(op, arith.ConstantOp):
            return np.asarray(_number(op.value).value.data, dtype=np_type(rt))
        if isinstance(op, affine.ApplyOp):
            m = op.map.data
            return affine_eval(m.results[0], v[: m.num_dims], v[m.num_dims :])
        if isinstance(op, affine.LoadOp):
            buf = env[op.memref]
            m = op.map.data
            idx = [affine_eval(e, v[1 : 1 + m.num_dims], v[1 + m.num_dims :]) for e in m.results]
            _check_bounds(op, idx, buf.shape)
            return buf[tuple(np.broadcast_arrays(*idx))] if idx else buf[()]
        if isinstance(op, memref.LoadOp):
            buf = env[op.memref]
            _check_bounds(op, v[1:], buf.shape)
            return buf[tuple(np.broadcast_arrays(*v[1:]))] if len(v) > 1 else buf[()]
        if isinstance(op, kernel.LoadOp):
            return self._padded_load(op, env)
        name = op.name
        if name in _FLOAT_BINARY:
            return _FLOAT_BINARY[name](v[0], v[1])
        if name in _INT_BINARY:
            return _INT_BINARY[name](np.asarray(v[0]), np.asarray(v[1]))
        if name in _UNARY:
            return _UNARY[name](v[0])
        if isinstance(op, arith.CmpfOp | arith.CmpiOp):
            return _cmp(op.predicate.value.data, np.asarray(v[0]), np.asarray(v[1]), isinstance(op, arith.CmpfOp))
        if isinstance(op, arith.SelectOp):
            return np.where(v[0], v[1], v[2])
        if isinstance(op, arith.ExtFOp | arith.TruncFOp | arith.SIToFPOp):
            return np.asarray(v[0]).astype(np_type(rt))
        if isinstance(op, arith.UIToFPOp):
            return unsigned(np.asarray(v[0])).astype(np_type(rt))
        if isinstance(op, arith.FPToSIOp):
            return np.asarray(v[0]).astype(np_type(rt))
        if isinstance(op, arith.FPToUIOp):
            return np.asarray(v[0]).astype(f"uint{np_type(rt).itemsize * 8}").view(np_type(rt))
        if isinstance(op, arith.ExtSIOp | arith.TruncIOp | arith.IndexCastOp):
            x = np.asarray(v[0])
            return x.astype(np_type(rt)) if x.dtype != np.bool_ else x.astype(np_type(rt))
        if isinstance(op, arith.ExtUIOp):
            return unsigned(np.asarray(v[0])).astype(np_type(rt))
        if isinstance(op, arith.BitcastOp):
            return np.asarray(v[0]).view(np_type(rt))
        if isinstance(op, kernel.Dot4Op):
            return dot4(*(np.asarray(x, np.int32) for x in v))
        if isinstance(op, kernel.Bf16Dot2Op):
            return bf16dot2(np.asarray(v[0], np.float32), np.asarray(v[1], np.int32), np.asarray(v[2], np.int32))
        raise NotImplementedError(f"kernel evaluator: {name}")

    def _padded_load(self, op: kernel.LoadOp, env: dict[SSAValue, np.ndarray]) -> np.ndarray:
        buf = env[op.memref]
        operands = [env[i] for i in op.indices]
        m = op.map.data
        idx = [np.asarray(affine_eval(e, operands[: m.num_dims], operands[m.num_dims :])) for e in m.results]
        idx = list(np.broadcast_arrays(*idx)) if idx else []
        shape = buf.shape
        ok = np.ones(idx[0].shape if idx else (), bool)
        for i, size in zip(idx, shape):
            ok &= (i >= 0) & (i < size)
        if op.cond is not None:
            ok = ok & np.asarray(env[op.cond])
            ok = np.broadcast_to(ok, np.broadcast(ok, *idx).shape) if idx else ok
        clamped = tuple(np.clip(i, 0, max(s - 1, 0)) for i, s in zip(idx, shape))
        pad = np.asarray(_number(op.pad).value.data, dtype=buf.dtype)
        if buf.size == 0:
            return np.broadcast_to(pad, ok.shape)
        return np.where(ok, buf[clamped] if clamped else buf[()], pad)


def _check_bounds(op: Operation, idx: Sequence, shape: Sequence[int]) -> None:
    """An out-of-bounds affine/memref load is undefined in the IR: numpy would wrap a
    negative index around silently, so the evaluator refuses instead."""
    for i, n in zip(idx, shape):
        i = np.asarray(i)
        if i.size and (i.min() < 0 or i.max() >= n):
            raise IndexError(f"{op.name} reads index {int(i.min())}..{int(i.max())} of a dim of size {n}")


def grids_for(extents: Sequence[int]) -> list[np.ndarray]:
    n = len(extents)
    return [
        np.arange(e, dtype=np.int64).reshape([-1 if i == d else 1 for i in range(n)]) for d, e in enumerate(extents)
    ]


def dot4(acc: np.ndarray, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """kernel.dot4: acc + sum over the four bytes of unsigned lhs byte * signed rhs byte,
    wrapping in int32."""
    acc, lhs, rhs = np.broadcast_arrays(acc, lhs, rhs)
    a = np.ascontiguousarray(lhs, "<i4").view(np.uint8).reshape(*lhs.shape, 4).astype(np.int64)
    b = np.ascontiguousarray(rhs, "<i4").view(np.int8).reshape(*rhs.shape, 4).astype(np.int64)
    return (acc.astype(np.int64) + (a * b).sum(-1)).astype(np.int32)


def _flush(x: np.ndarray) -> np.ndarray:
    """Subnormal float32 values as zeros of their sign (DAZ / FTZ)."""
    return np.where(np.abs(x) < np.finfo(np.float32).tiny, np.float32(0) * x, x).astype(np.float32)


def bf16_halves(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (high, low) bfloat16 halves of int32 words, as float32."""
    u = np.ascontiguousarray(words, "<i4").view(np.uint32)
    return (u & np.uint32(0xFFFF0000)).view(np.float32), (u << np.uint32(16)).view(np.float32)


def bf16dot2(acc: np.ndarray, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """kernel.bf16dot2: acc + lhs.hi * rhs.hi, then + lhs.lo * rhs.lo, each step rounded to
    float32, subnormal inputs and results flushed to zero (vdpbf16ps)."""
    acc, lhs, rhs = np.broadcast_arrays(acc, lhs, rhs)
    (ahi, alo), (bhi, blo) = bf16_halves(lhs), bf16_halves(rhs)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        r = _flush(_flush(acc.astype(np.float32)) + _flush(_flush(ahi) * _flush(bhi)))
        return _flush(r + _flush(_flush(alo) * _flush(blo)))


def _divsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.floor_divide(a, np.where(b == 0, 1, b))
    fix = (np.remainder(a, np.where(b == 0, 1, b)) != 0) & ((a < 0) != (b < 0))
    return (q + fix).astype(a.dtype)


Binary = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _unsigned_op(fn: Binary) -> Binary:
    def apply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        ua, ub = unsigned(a), unsigned(b)
        return fn(ua, ub).astype(ua.dtype).view(a.dtype)

    return apply


_FLOAT_BINARY: dict[str, Binary] = {
    "arith.addf": np.add,
    "arith.subf": np.subtract,
    "arith.mulf": np.multiply,
    "arith.divf": np.divide,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
    "math.powf": np.power,
    "math.copysign": np.copysign,
    "llvm.frem": np.fmod,
}

_INT_BINARY: dict[str, Binary] = {
    "arith.addi": np.add,
    "arith.subi": np.subtract,
    "arith.muli": np.multiply,
    "arith.divsi": _divsi,
    "arith.divui": _unsigned_op(lambda a, b: np.floor_divide(a, np.where(b == 0, 1, b))),
    "arith.remsi": lambda a, b: np.fmod(a, np.where(b == 0, 1, b)),
    "arith.floordivsi": lambda a, b: np.floor_divide(a, b),
    "arith.ceildivsi": lambda a, b: -np.floor_divide(-a, b),
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.maxui": _unsigned_op(np.maximum),
    "arith.minui": _unsigned_op(np.minimum),
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "arith.remui": _unsigned_op(lambda a, b: np.remainder(a, np.where(b == 0, 1, b))),
    "arith.shli": _unsigned_op(np.left_shift),
    "arith.shrui": _unsigned_op(np.right_shift),
    "arith.shrsi": np.right_shift,
}

_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "arith.negf": np.negative,
    "math.exp": np.exp,
    "math.sqrt": np.sqrt,
    "math.tanh": np.tanh,
    "math.log": np.log,
    "math.erf": lambda x: special.erf(x).astype(np.asarray(x).dtype),
    "math.absf": np.abs,
    "math.absi": np.abs,
    "math.floor": np.floor,
    "math.ceil": np.ceil,
    "math.roundeven": np.rint,
    "math.expm1": np.expm1,
    "math.log1p": np.log1p,
    "math.sin": np.sin,
    "math.cos": np.cos,
    "math.tan": np.tan,
    "math.asin": np.arcsin,
    "math.acos": np.arccos,
    "math.atan": np.arctan,
    "math.sinh": np.sinh,
    "math.cosh": np.cosh,
    "math.asinh": np.arcsinh,
    "math.acosh": np.arccosh,
    "math.atanh": np.arctanh,
}


def run_kernel_module(
    module: ModuleOp, inputs: Sequence[np.ndarray], weights: Mapping[str, np.ndarray]
) -> list[np.ndarray]:
    return KernelEvaluator(module, weights).run(inputs)
