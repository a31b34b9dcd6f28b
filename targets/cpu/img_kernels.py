"""Whole-frame image ops as native kernels: reduce, scan, dense, remap, upsample.

These read a whole frame (or scatter over it), so they are not row-streamed stages: the
frame program (dialects/img/program.py) runs them between the fused, line-buffered row
pipelines, on materialized frames, the way Halide runs a `compute_root` stage. Each kernel
has the launch signature of the native thread pool, `@k(ptr args, i64 lo, i64 hi)`
(args: input base pointers, then the output's), and is parallel over the extent it
declares: output rows for remap and upsample, output neurons for dense; reduce and scan
carry a dependence across the whole frame and run as one chunk.

Arithmetic is the reference's (dialects/img/reference.py): integer sums wrap in int32
(an i32 accumulator wraps exactly as the reference's int64 sum cast to int32), f32 sums
and integral images accumulate in f64 in the reference's order (rows first, then columns),
min/max propagate NaN like numpy, remap clamps its LUT into the frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Operation

from tessel.dialects import img
from tessel.dialects.img.attrs import ReduceKind
from tessel.dialects.img.types import ImageType, element_bits, element_name
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.cpu.img_ops import Func


@dataclass
class Kernel:
    """One whole-frame op: its LLVM function and the extent its chunks split."""

    name: str
    text: str
    extent: int


def _elem(t: ImageType) -> tuple[str, str]:
    """(LLVM scalar type, how it widens: 'z', 's' or 'f')."""
    name = element_name(t.element)
    if name == "f32":
        return "float", "f"
    return f"i{name.lstrip('ui')}", "z" if name.startswith("u") else "s"


def _widen(f: Func, v: str, t: str, how: str, to: str) -> str:
    if t == to:
        return v
    return f.emit(f"{'zext' if how == 'z' else 'sext'} {t} {v} to {to}")


def _at(f: Func, t: str, base: str, index: str) -> str:
    return f.emit(f"getelementptr {t}, ptr {base}, i64 {index}")


def _mad(f: Func, a: str, b: int | str, c: int | str) -> str:
    """a * b + c in i64."""
    return f.emit(f"add i64 {f.emit(f'mul i64 {a}, {b}')}, {c}")


def _args(f: Func, n: int) -> list[str]:
    return [f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %args, i64 {i}')}, align 8") for i in range(n)]


def _reduce(f: Func, op: img.ReduceOp) -> int:
    x, y = op.input.type, op.result.type
    assert isinstance(x, ImageType) and isinstance(y, ImageType)
    src, dst = _args(f, 2)
    t, how = _elem(x)
    ot, _ = _elem(y)
    n, c = x.height.data * x.width.data, x.channels.data
    kind = op.kind.data
    acc_t = "double" if (kind == ReduceKind.SUM and how == "f") else ot
    acc = f.emit(f"alloca {acc_t}, align 8")

    def per_channel(ch: str) -> None:
        if kind == ReduceKind.SUM:
            f.do(f"store {acc_t} {'0.0' if acc_t == 'double' else '0'}, ptr {acc}, align 8")
        else:
            f.do(f"store {t} {f.emit(f'load {t}, ptr {_at(f, t, src, ch)}, align 1')}, ptr {acc}, align 8")

        def step(p: str) -> None:
            v = f.emit(f"load {t}, ptr {_at(f, t, src, _mad(f, p, c, ch))}, align 1")
            a = f.emit(f"load {acc_t}, ptr {acc}, align 8")
            if kind == ReduceKind.SUM and how == "f":
                r = f.emit(f"fadd double {a}, {f.emit(f'fpext float {v} to double')}")
            elif kind == ReduceKind.SUM:
                r = f.emit(f"add i32 {a}, {_widen(f, v, t, how, 'i32')}")
            elif how == "f":
                r = f.emit(
                    f.intrinsic(
                        f"llvm.{'minimum' if kind == ReduceKind.MIN else 'maximum'}.f32",
                        "float",
                        [("float", a), ("float", v)],
                    )
                )
            else:
                name = f"llvm.{'u' if how == 'z' else 's'}{kind}.{t}"
                r = f.emit(f.intrinsic(name, t, [(t, a), (t, v)]))
            f.do(f"store {acc_t} {r}, ptr {acc}, align 8")

        f.loop("0", str(n), 1, step, prefix="p")
        a = f.emit(f"load {acc_t}, ptr {acc}, align 8")
        if acc_t == "double":
            a = f.emit(f"fptrunc double {a} to float")
        f.do(f"store {ot} {a}, ptr {_at(f, ot, dst, ch)}, align 1")

    f.loop("0", str(c), 1, per_channel, prefix="c")
    return 1


def _scan(f: Func, op: img.ScanOp) -> int:
    """Column sums (cumsum over rows) kept in a row of accumulators; each output row is the
    running sum of them along x: the reference's cumsum(0).cumsum(1), in the same order."""
    x, y = op.input.type, op.result.type
    assert isinstance(x, ImageType) and isinstance(y, ImageType)
    src, dst = _args(f, 2)
    t, how = _elem(x)
    ot, _ = _elem(y)
    h, w, c = x.height.data, x.width.data, x.channels.data
    acc_t = "double" if how == "f" else "i32"
    zero = "0.0" if how == "f" else "0"
    add = "fadd" if how == "f" else "add"
    col = f.emit(f"call ptr @calloc(i64 {w * c}, i64 8)")
    run = f.emit(f"alloca {acc_t}, align 8")

    def row(yy: str) -> None:
        def channel(ch: str) -> None:
            f.do(f"store {acc_t} {zero}, ptr {run}, align 8")

            def pixel(xx: str) -> None:
                i = f.emit(f"add i64 {f.emit(f'mul i64 {xx}, {c}')}, {ch}")
                g = f.emit(f"add i64 {f.emit(f'mul i64 {yy}, {w * c}')}, {i}")
                v = f.emit(f"load {t}, ptr {_at(f, t, src, g)}, align 1")
                v = f.emit(f"fpext float {v} to double") if how == "f" else _widen(f, v, t, how, "i32")
                cp = _at(f, acc_t, col, i)
                s = f.emit(f"{add} {acc_t} {f.emit(f'load {acc_t}, ptr {cp}, align 8')}, {v}")
                f.do(f"store {acc_t} {s}, ptr {cp}, align 8")
                r = f.emit(f"{add} {acc_t} {f.emit(f'load {acc_t}, ptr {run}, align 8')}, {s}")
                f.do(f"store {acc_t} {r}, ptr {run}, align 8")
                out = f.emit(f"fptrunc double {r} to float") if how == "f" else r
                f.do(f"store {ot} {out}, ptr {_at(f, ot, dst, g)}, align 1")

            f.loop("0", str(w), 1, pixel, prefix="x")

        f.loop("0", str(c), 1, channel, prefix="c")

    f.loop("0", str(h), 1, row, prefix="y")
    f.do(f"call void @free(ptr {col})")
    return 1


def _dense(f: Func, op: img.DenseOp) -> int:
    """out[k] = sum_i x[i] * w[i, k] for the chunk's neurons [lo, hi): the input loop outside,
    the neurons inside (contiguous weights, a vector loop)."""
    x, wt = op.input.type, op.weights.type
    assert isinstance(x, ImageType) and isinstance(wt, ImageType)
    src, weights, dst = _args(f, 3)
    t, how = _elem(x)
    n, k = wt.height.data, wt.width.data

    def clear(j: str) -> None:
        f.do(f"store i32 0, ptr {_at(f, 'i32', dst, j)}, align 4")

    f.loop("%lo", "%hi", 1, clear, prefix="z")

    def term(i: str) -> None:
        xi = _widen(f, f.emit(f"load {t}, ptr {_at(f, t, src, i)}, align 1"), t, how, "i32")
        row = f.emit(f"mul i64 {i}, {k}")

        def neuron(j: str) -> None:
            wp = _at(f, "i8", weights, f.emit(f"add i64 {row}, {j}"))
            wv = f.emit(f"sext i8 {f.emit(f'load i8, ptr {wp}, align 1')} to i32")
            p = _at(f, "i32", dst, j)
            s = f.emit(f"add i32 {f.emit(f'load i32, ptr {p}, align 4')}, {f.emit(f'mul i32 {xi}, {wv}')}")
            f.do(f"store i32 {s}, ptr {p}, align 4")

        f.loop("%lo", "%hi", 1, neuron, prefix="k")

    f.loop("0", str(n), 1, term, prefix="i")
    return k


def _remap(f: Func, op: img.RemapOp) -> int:
    x, lut, y = op.input.type, op.lut.type, op.result.type
    assert isinstance(x, ImageType) and isinstance(lut, ImageType) and isinstance(y, ImageType)
    src, table, dst = _args(f, 3)
    t, _ = _elem(x)
    lt, _ = _elem(lut)
    h, w, c = x.height.data, x.width.data, x.channels.data
    ow = y.width.data
    size = element_bits(x.element) // 8 * c

    def clamp(v: str, extent: int) -> str:
        v = f.emit(f"sext {lt} {v} to i64")
        v = f.emit(f.intrinsic("llvm.smax.i64", "i64", [("i64", v), ("i64", "0")]))
        return f.emit(f.intrinsic("llvm.smin.i64", "i64", [("i64", v), ("i64", str(extent - 1))]))

    def row(yy: str) -> None:
        def pixel(xx: str) -> None:
            o = f.emit(f"add i64 {f.emit(f'mul i64 {yy}, {ow}')}, {xx}")
            li = f.emit(f"mul i64 {o}, 2")
            ry = clamp(f.emit(f"load {lt}, ptr {_at(f, lt, table, li)}, align 1"), h)
            rx = clamp(f.emit(f"load {lt}, ptr {_at(f, lt, table, f.emit(f'add i64 {li}, 1'))}, align 1"), w)
            at = f.emit(f"mul i64 {_mad(f, ry, w, rx)}, {c}")
            f.do(f"call void @llvm.memcpy.p0.p0.i64(ptr {_at(f, t, dst, f.emit(f'mul i64 {o}, {c}'))}, "
                 f"ptr {_at(f, t, src, at)}, i64 {size}, i1 false)")  # fmt: skip

        f.loop("0", str(ow), 1, pixel, prefix="x")

    f.loop("%lo", "%hi", 1, row, prefix="y")
    return y.height.data


def _upsample(f: Func, op: img.UpsampleOp) -> int:
    x, y = op.input.type, op.result.type
    assert isinstance(x, ImageType) and isinstance(y, ImageType)
    src, dst = _args(f, 2)
    t, _ = _elem(x)
    fy, fx = op.factors
    w, c = x.width.data, x.channels.data
    ow = y.width.data
    size = element_bits(x.element) // 8 * c

    def row(yy: str) -> None:
        sy = f.emit(f"udiv i64 {yy}, {fy}")

        def pixel(xx: str) -> None:
            at = f.emit(f"mul i64 {_mad(f, sy, w, f.emit(f'udiv i64 {xx}, {fx}'))}, {c}")
            o = f.emit(f"mul i64 {_mad(f, yy, ow, xx)}, {c}")
            f.do(
                f"call void @llvm.memcpy.p0.p0.i64(ptr {_at(f, t, dst, o)}, ptr {_at(f, t, src, at)}, i64 {size}, i1 false)"
            )

        f.loop("0", str(ow), 1, pixel, prefix="x")

    f.loop("%lo", "%hi", 1, row, prefix="y")
    return y.height.data


_EMITTERS: dict[type[Operation], Callable[[Func, Any], int]] = {
    img.ReduceOp: _reduce,
    img.ScanOp: _scan,
    img.DenseOp: _dense,
    img.RemapOp: _remap,
    img.UpsampleOp: _upsample,
}


def emit_kernel(op: Operation, name: str, decls: set[str]) -> Kernel:
    """The native kernel of one whole-frame op, its declarations added to `decls`."""
    emit = _EMITTERS.get(type(op))
    if emit is None:
        raise TesselError(f"{op.name} has no CPU kernel", op_location(op))
    decls |= {"declare ptr @calloc(i64, i64)", "declare void @free(ptr)"}
    f = Func(decls)
    extent = emit(f, op)
    f.do("ret void")
    text = f"define void @{name}(ptr noalias %args, i64 %lo, i64 %hi) #0 {{\nentry:\n" + "\n".join(f.lines) + "\n}"
    return Kernel(name, text, extent)
