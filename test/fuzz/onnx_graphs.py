"""Random ONNX graphs over the operators real exported models use (the real-models issue):
gathers, expands, where and the comparisons, casts through other element types, shape
subgraphs (Shape -> Gather -> Concat -> Reshape, ConstantOfShape, Range), splits, slices
with steps, resizes, pads, normalizations, matmuls, grouped and 3-D convolutions, top-k and
arg-max, quantize / dequantize pairs... built with onnx.helper at opset 17, as PyTorch's
exporter writes them, so onnxruntime can be the oracle.

Float results of different implementations differ by rounding, and a discontinuous op
(Floor, a comparison, a cast to an integer, ArgMax) turns that into a whole step. So every
value carries `exact`: true when each op on its way is one correctly rounded IEEE operation
or data movement (Add, Sub, Max, Min, Abs, Neg, Relu, Floor, gathers, casts...), which every
conforming implementation computes bit for bit. A discontinuous op only takes exact values,
and Mul is never exact (a compiler may contract it into an FMA with the Add after it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from tg_graphs import base

OPSET = 17
ONNX_TYPE = {  # the element types `cast` goes through
    np.dtype("float64"): TensorProto.DOUBLE,
    np.dtype("float16"): TensorProto.FLOAT16,
    np.dtype("int32"): TensorProto.INT32,
    np.dtype("int64"): TensorProto.INT64,
    np.dtype("uint8"): TensorProto.UINT8,
    np.dtype("bool"): TensorProto.BOOL,
}


@dataclass
class Value:
    name: str
    shape: tuple[int, ...]
    exact: bool = True


@dataclass
class Case:
    model: onnx.ModelProto
    feed: dict[str, np.ndarray]
    exact: list[bool]  # per output: computed only by correctly rounded ops and data movement

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis shows the failing graph as text
        printer.text("\n" + onnx.printer.to_text(self.model.graph))


@dataclass
class OnnxBuilder:
    draw: Callable
    rng: np.random.Generator
    nodes: list[onnx.NodeProto] = field(default_factory=list)
    initializers: list[onnx.TensorProto] = field(default_factory=list)
    inputs: list[onnx.ValueInfoProto] = field(default_factory=list)
    feed: dict[str, np.ndarray] = field(default_factory=dict)
    pool: list[Value] = field(default_factory=list)
    count: int = 0

    # ------------------------------------------------------------- values

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{stem}_{self.count}"

    def flag(self) -> bool:
        return self.draw(st.booleans())

    def one_of(self, items):
        return self.draw(st.sampled_from(items))

    def shape(self, rank: int, low: int = 1) -> tuple[int, ...]:
        return tuple(self.draw(st.integers(low, 4)) for _ in range(rank))

    def input(self, shape: tuple[int, ...]) -> Value:
        """A graph input of normals, a quarter of them rounded to quarters (ties and equal
        values for the comparisons, Round and Floor to meet)."""
        name = self.fresh("x")
        array = self.rng.standard_normal(shape).astype(np.float32)
        array = np.where(self.rng.integers(0, 4, shape) == 0, np.round(array * 4) / 4, array).astype(np.float32)
        self.feed[name] = array
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        value = Value(name, shape)
        self.pool.append(value)
        return value

    def const(self, array: np.ndarray, stem: str = "c") -> str:
        name = self.fresh(stem)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op: str, inputs: list[str], n_out: int = 1, **attrs) -> list[str]:
        outs = [self.fresh(op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.fresh(f"/{op}"), **attrs))
        return outs

    def push(self, name: str, shape, exact: bool = False) -> Value:
        """A float32 result joins the pool (every step casts other element types back)."""
        value = Value(name, tuple(shape), exact)
        self.pool.append(value)
        return value

    def pick(self, accept=lambda v: True) -> Value | None:
        candidates = [v for v in self.pool if accept(v)]
        if not candidates:
            return None
        return candidates[len(candidates) - 1 - self.draw(st.integers(0, len(candidates) - 1))]

    def any_value(self, accept=lambda v: True) -> Value:
        return self.pick(accept) or self.input(self.shape(self.draw(st.integers(1, 4))))

    def exact_value(self, rank_from: int = 0) -> Value:
        v = self.pick(lambda v: v.exact and len(v.shape) >= rank_from)
        return v or self.input(self.shape(max(rank_from, self.draw(st.integers(1, 4)))))

    def image(self) -> Value:
        v = self.pick(lambda v: len(v.shape) == 4)
        return v or self.input((self.draw(st.integers(1, 2)), *self.shape(1), *self.shape(2, low=2)))

    def broadcast_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        keep = self.draw(st.integers(0, len(shape)))
        return tuple(1 if self.flag() else n for n in shape[len(shape) - keep :])

    # ------------------------------------------------------------- element-wise

    def unary(self) -> None:
        v = self.any_value()
        op, attrs = self.one_of(
            [
                ("Erf", {}),
                ("Tanh", {}),
                ("Sigmoid", {}),
                ("HardSigmoid", {"alpha": 0.2, "beta": 0.5}),
                ("HardSwish", {}),
                ("Softplus", {}),
                ("Softsign", {}),
                ("LeakyRelu", {"alpha": 0.1}),
                ("Elu", {"alpha": 1.0}),
                ("Selu", {}),
                ("Celu", {"alpha": 1.5}),
                ("ThresholdedRelu", {"alpha": 0.5}),
                ("Sin", {}),
                ("Cos", {}),
                ("Atan", {}),
                ("Exp", {}),
            ]
        )
        self.push(self.node(op, [v.name], **attrs)[0], v.shape)

    def exact_unary(self) -> None:
        """Ops every implementation computes bit for bit; the rounding ones on exact values."""
        v = self.any_value()
        ops = ["Neg", "Abs", "Relu"] + (["Floor", "Ceil", "Round", "Sign"] if v.exact else [])
        self.push(self.node(self.one_of(ops), [v.name])[0], v.shape, exact=v.exact)

    def other(self, v: Value) -> Value:
        """A second operand broadcasting against v: from the pool or a constant."""
        same = self.pick(lambda u: u.shape == v.shape and u is not v)
        if same is not None and self.flag():
            return same
        shape = self.broadcast_shape(v.shape)
        array = self.rng.standard_normal(shape).astype(np.float32)
        return Value(self.const(np.round(array * 4) / 4 if self.flag() else array), shape)

    def binary(self) -> None:
        v = self.any_value()
        u = self.other(v)
        a, b = (v, u) if self.flag() else (u, v)
        shape = tuple(np.broadcast_shapes(a.shape, b.shape))
        op = self.one_of(["Add", "Sub", "Mul", "Max", "Min", "Div", "Pow", "PRelu"])
        if op == "Div":  # a denominator away from zero: |b| + 0.5
            b = Value(self.node("Add", [self.node("Abs", [b.name])[0], self.const(np.float32(0.5))])[0], b.shape)
        if op == "Pow":
            base = self.node("Add", [self.node("Abs", [v.name])[0], self.const(np.float32(0.25))])[0]
            exponent = self.const(np.float32(self.one_of([2.0, 0.5, 3.0, -1.0, 1.5])))
            self.push(self.node("Pow", [base, exponent])[0], v.shape)
            return
        if op == "PRelu":
            slope = self.const(self.rng.uniform(0, 0.5, self.broadcast_shape(v.shape)).astype(np.float32))
            self.push(self.node("PRelu", [v.name, slope])[0], v.shape)
            return
        exact = op in ("Add", "Sub", "Max", "Min") and a.exact and b.exact
        self.push(self.node(op, [a.name, b.name])[0], shape, exact=exact)

    def where(self) -> None:
        """Where over a comparison of exact values, sometimes combined with And/Or/Xor/Not."""
        a = self.exact_value()
        b = self.other(a) if self.flag() else Value(self.const(np.float32(0.25 * self.draw(st.integers(-4, 4)))), ())
        if not b.exact:
            b = Value(self.node("Floor", [b.name])[0], b.shape)
        cmp = self.one_of(["Greater", "Less", "Equal", "GreaterOrEqual", "LessOrEqual"])
        cond = self.node(cmp, [a.name, b.name])[0]
        shape = tuple(np.broadcast_shapes(a.shape, b.shape))
        if self.flag():
            other = self.node(self.one_of(["Greater", "Less"]), [a.name, self.const(np.float32(0.0))])[0]
            cond = self.node(self.one_of(["And", "Or", "Xor"]), [cond, other])[0]
        if self.flag():
            cond = self.node("Not", [cond])[0]
        x = self.pick(lambda v: base.broadcasts_to(v.shape, shape)) or self.input(shape)
        y = self.other(x)
        out = tuple(np.broadcast_shapes(shape, x.shape, y.shape))
        self.push(self.node("Where", [cond, x.name, y.name])[0], out, exact=x.exact and y.exact)

    def cast(self) -> None:
        """Through another element type and back: integers (truncation, integer Add/Mul/Mod/
        Max), f16 (round to nearest even), f64 and bool."""
        v = self.exact_value()
        kind = self.one_of(["int32", "int64", "float16", "float64", "bool", "uint8"])
        dtype = np.dtype(kind)
        if kind == "uint8":  # only values in range: |floor(v)| wraps otherwise, as it may
            v = Value(self.node("Abs", [v.name])[0], v.shape, exact=True)
        name = self.node("Cast", [v.name], to=ONNX_TYPE[dtype])[0]
        if kind in ("int32", "int64"):
            op = self.one_of(["Add", "Mul", "Mod", "Max", "Abs", "Neg"])
            if op in ("Abs", "Neg"):
                name = self.node(op, [name])[0]
            else:
                k = self.draw(st.integers(1, 5)) if op == "Mod" else self.draw(st.integers(-3, 3))
                name = self.node(op, [name, self.const(np.array(k, dtype))])[0]
        elif kind == "float64" and self.flag():
            name = self.node(self.one_of(["Add", "Sub"]), [name, self.const(np.float64(1 / 3))])[0]
        self.push(self.node("Cast", [name], to=TensorProto.FLOAT)[0], v.shape, exact=True)

    def quantize(self) -> None:
        """QuantizeLinear -> DequantizeLinear of an exact value (x / scale rounded half to
        even, saturated; per tensor u8/i8, or per channel along axis 1)."""
        v = self.exact_value()
        signed = self.flag()
        dtype = np.int8 if signed else np.uint8
        axis = 1 if len(v.shape) >= 2 and self.flag() else None
        n = v.shape[axis] if axis is not None else None
        scale = self.rng.choice(np.array([0.25, 0.125, 0.5, 0.0625], np.float32), size=n or ())
        zero = self.rng.integers(-8, 8, size=n or ()) if signed else self.rng.integers(100, 156, size=n or ())
        s, z = self.const(scale.astype(np.float32)), self.const(zero.astype(dtype))
        attrs = {"axis": axis} if axis is not None else {}
        q = self.node("QuantizeLinear", [v.name, s, z], **attrs)[0]
        self.push(self.node("DequantizeLinear", [q, s, z], **attrs)[0], v.shape, exact=True)

    # ------------------------------------------------------------- indexing and shapes

    def gather(self) -> None:
        v = self.any_value(lambda v: 1 <= len(v.shape) <= 4)
        axis = self.draw(st.integers(0, len(v.shape) - 1))
        n = v.shape[axis]
        ishape = self.shape(self.draw(st.integers(0, 2)))
        if len(v.shape) - 1 + len(ishape) > 5:
            ishape = ()
        index = self.rng.integers(-n, n, ishape).astype(np.int64)
        out = v.shape[:axis] + ishape + v.shape[axis + 1 :]
        self.push(self.node("Gather", [v.name, self.const(index, "idx")], axis=axis)[0], out, exact=v.exact)

    def gather_elements(self) -> None:
        v = self.any_value(lambda v: len(v.shape) >= 1)
        axis = self.draw(st.integers(0, len(v.shape) - 1))
        ishape = tuple(self.draw(st.integers(1, 4)) if d == axis else n for d, n in enumerate(v.shape))
        index = self.rng.integers(-v.shape[axis], v.shape[axis], ishape).astype(np.int64)
        name = self.node("GatherElements", [v.name, self.const(index, "idx")], axis=axis)[0]
        self.push(name, ishape, exact=v.exact)

    def expand(self) -> None:
        v = self.any_value(lambda v: len(v.shape) <= 3)
        target = tuple(self.draw(st.integers(1, 3)) if n == 1 else n for n in v.shape)
        if self.flag():
            target = (self.draw(st.integers(1, 3)), *target)
        name = self.node("Expand", [v.name, self.const(np.array(target, np.int64), "shape")])[0]
        self.push(name, target, exact=v.exact)

    def shape_subgraph(self) -> None:
        """Shape -> Gather -> Concat -> Reshape, as exporters write a flatten; or a
        ConstantOfShape of the shape, or a Range over the last dimension."""
        v = self.any_value(lambda v: len(v.shape) >= 2)
        shape = self.node("Shape", [v.name])[0]
        how = self.one_of(["reshape", "constant_of_shape", "range"])
        if how == "reshape":
            first = self.node("Gather", [shape, self.const(np.array([0], np.int64), "idx")], axis=0)[0]
            new = self.node("Concat", [first, self.const(np.array([-1], np.int64), "shape")], axis=0)[0]
            out = (v.shape[0], math.prod(v.shape[1:]))
            self.push(self.node("Reshape", [v.name, new])[0], out, exact=v.exact)
        elif how == "constant_of_shape":
            fill = numpy_helper.from_array(np.array([0.25 * self.draw(st.integers(-8, 8))], np.float32))
            c = self.node("ConstantOfShape", [shape], value=fill)[0]
            self.push(self.node("Add", [v.name, c])[0], v.shape, exact=v.exact)
        else:
            last = self.node("Gather", [shape, self.const(np.array(len(v.shape) - 1, np.int64), "idx")], axis=0)[0]
            zero, one = self.const(np.array(0, np.int64)), self.const(np.array(1, np.int64))
            r = self.node("Cast", [self.node("Range", [zero, last, one])[0]], to=TensorProto.FLOAT)[0]
            self.push(self.node("Add", [v.name, r])[0], v.shape, exact=v.exact)

    def split(self) -> None:
        v = self.any_value(lambda v: any(n >= 2 for n in v.shape))
        if not any(n >= 2 for n in v.shape):
            return self.unary()
        axis = next(d for d, n in enumerate(v.shape) if n >= 2)
        first = self.draw(st.integers(1, v.shape[axis] - 1))
        sizes = self.const(np.array([first, v.shape[axis] - first], np.int64), "split")
        a, b = self.node("Split", [v.name, sizes], n_out=2, axis=axis)
        rest = v.shape[axis] - first
        self.push(a, v.shape[:axis] + (first,) + v.shape[axis + 1 :], exact=v.exact)
        self.push(b, v.shape[:axis] + (rest,) + v.shape[axis + 1 :], exact=v.exact)

    def slice(self) -> None:
        v = self.any_value(lambda v: len(v.shape) >= 1)
        axis = self.draw(st.integers(0, len(v.shape) - 1))
        n = v.shape[axis]
        step = self.one_of([1, 2, -1, -2])
        start = self.draw(st.integers(0, n - 1))
        if step > 0:
            end = self.draw(st.integers(start + 1, n + 3))
            length = len(range(start, min(end, n), step))
        else:  # ONNX: a negative end counts from n, then clamps to -1 (through index 0)
            end = self.draw(st.integers(-n - 5, start - 1))
            length = len(range(start, max(end + n if end < 0 else end, -1), step))
        if length < 1:
            return self.gather()
        consts = [self.const(np.array([x], np.int64), "slice") for x in (start, end, axis, step)]
        out = v.shape[:axis] + (length,) + v.shape[axis + 1 :]
        self.push(self.node("Slice", [v.name, *consts])[0], out, exact=v.exact)

    def transpose(self) -> None:
        v = self.any_value(lambda v: len(v.shape) >= 2)
        if len(v.shape) < 2:
            return self.unary()
        perm = self.draw(st.permutations(range(len(v.shape))))
        out = tuple(v.shape[p] for p in perm)
        self.push(self.node("Transpose", [v.name], perm=list(perm))[0], out, exact=v.exact)

    def concat(self) -> None:
        v = self.any_value()
        if not v.shape:
            return self.unary()
        axis = self.draw(st.integers(0, len(v.shape) - 1))
        pieces = [v]
        for _ in range(self.draw(st.integers(1, 3))):
            other = v.shape[:axis] + (self.draw(st.integers(1, 3)),) + v.shape[axis + 1 :]
            same = self.pick(lambda u, want=other: u.shape == want)
            pieces.append(same if same is not None and self.flag() else self.input(other))
        out = v.shape[:axis] + (sum(p.shape[axis] for p in pieces),) + v.shape[axis + 1 :]
        exact = all(p.exact for p in pieces)
        self.push(self.node("Concat", [p.name for p in pieces], axis=axis)[0], out, exact=exact)

    def tile_or_trilu(self) -> None:
        v = self.any_value(lambda v: len(v.shape) >= 2)
        if len(v.shape) < 2:
            return self.unary()
        if self.flag():
            repeats = tuple(self.draw(st.integers(1, 2)) for _ in v.shape)
            out = tuple(n * r for n, r in zip(v.shape, repeats, strict=True))
            name = self.node("Tile", [v.name, self.const(np.array(repeats, np.int64), "repeats")])[0]
        else:
            k = self.const(np.array(self.draw(st.integers(-2, 2)), np.int64), "k")
            name, out = self.node("Trilu", [v.name, k], upper=int(self.flag()))[0], v.shape
        self.push(name, out, exact=v.exact)

    def pad(self) -> None:
        v = self.image()
        mode = self.one_of(["constant", "reflect", "edge"])
        h, w = v.shape[2:]
        pads = [0, 0] + [self.draw(st.integers(0, 2 if mode != "reflect" else min(2, n - 1))) for n in (h, w)]
        pads += [0, 0] + [self.draw(st.integers(0, 2 if mode != "reflect" else min(2, n - 1))) for n in (h, w)]
        out = tuple(n + pads[d] + pads[d + 4] for d, n in enumerate(v.shape))
        name = self.node("Pad", [v.name, self.const(np.array(pads, np.int64), "pads")], mode=mode)[0]
        self.push(name, out, exact=v.exact)

    def resize(self) -> None:
        v = self.image()
        mode = self.one_of(["nearest", "linear"])
        scale = np.array([1, 1, self.one_of([2.0, 0.5, 1.5]), self.one_of([2.0, 3.0])], np.float32)
        out = tuple(int(math.floor(n * s)) for n, s in zip(v.shape, scale, strict=True))
        if min(out) < 1:
            return self.unary()
        attrs = {"mode": mode}
        if mode == "nearest":
            attrs |= {"coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
        else:
            how = self.one_of(["half_pixel", "align_corners", "pytorch_half_pixel"])
            attrs |= {"coordinate_transformation_mode": how}
            if how == "align_corners" and any(n * s != int(n * s) for n, s in zip(v.shape, scale, strict=True)):
                # onnx's reference (and so the node tests Tessel passes) divides by the
                # unrounded output length (n * scale - 1), onnxruntime by the rounded one:
                # they disagree where n * scale is fractional, so only whole lengths here
                scale = np.array([1, 1, 2.0, 2.0], np.float32)
                out = tuple(int(n * s) for n, s in zip(v.shape, scale, strict=True))
        name = self.node("Resize", [v.name, "", self.const(scale, "scales")], **attrs)[0]
        self.push(name, out, exact=v.exact and mode == "nearest")

    # ------------------------------------------------------------- reductions and layers

    def reduce(self) -> None:
        v = self.any_value(lambda v: len(v.shape) >= 1)
        axes = sorted(self.draw(st.sets(st.integers(0, len(v.shape) - 1), min_size=1)))
        keep = int(self.flag())
        op = self.one_of(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceLogSumExp"])
        if op == "ReduceSum":
            name = self.node(op, [v.name, self.const(np.array(axes, np.int64), "axes")], keepdims=keep)[0]
        else:
            name = self.node(op, [v.name], axes=axes, keepdims=keep)[0]
        out = tuple(1 if d in axes else n for d, n in enumerate(v.shape) if keep or d not in axes)
        self.push(name, out, exact=v.exact and op in ("ReduceMax", "ReduceMin"))

    def arg_or_topk(self) -> None:
        """ArgMax/ArgMin and TopK on exact values (ties: the first index, as ONNX says)."""
        v = self.exact_value(rank_from=1)
        axis = self.draw(st.integers(0, len(v.shape) - 1))
        if self.flag():
            op = self.one_of(["ArgMax", "ArgMin"])
            keep = int(self.flag())
            index = self.node(op, [v.name], axis=axis, keepdims=keep)[0]
            out = tuple(1 if d == axis else n for d, n in enumerate(v.shape) if keep or d != axis)
        else:
            k = self.draw(st.integers(1, v.shape[axis]))
            largest = int(self.flag())
            values, index = self.node(
                "TopK", [v.name, self.const(np.array([k], np.int64), "k")], 2, axis=axis, largest=largest
            )
            out = v.shape[:axis] + (k,) + v.shape[axis + 1 :]
            self.push(values, out, exact=True)
        self.push(self.node("Cast", [index], to=TensorProto.FLOAT)[0], out, exact=True)

    def softmax_or_norm(self) -> None:
        v = self.any_value(lambda v: len(v.shape) >= 1)
        how = self.one_of(["Softmax", "LogSoftmax", "LayerNormalization", "InstanceNormalization"])
        if how == "InstanceNormalization":
            v = self.image()
            c = v.shape[1]
            scale, bias = (
                self.const(self.rng.uniform(0.5, 2, c).astype(np.float32)),
                self.const(np.zeros(c, np.float32)),
            )
            self.push(self.node(how, [v.name, scale, bias], epsilon=1e-5)[0], v.shape)
        elif how == "LayerNormalization":
            n = v.shape[-1]
            scale = self.const(self.rng.uniform(0.5, 2, n).astype(np.float32))
            bias = self.const(self.rng.standard_normal(n).astype(np.float32))
            self.push(self.node(how, [v.name, scale, bias], axis=-1, epsilon=1e-5)[0], v.shape)
        else:
            self.push(self.node(how, [v.name], axis=self.draw(st.integers(-1, len(v.shape) - 1)))[0], v.shape)

    def matmul(self) -> None:
        v = self.any_value(lambda v: len(v.shape) >= 1)
        k, n = v.shape[-1], self.draw(st.integers(1, 5))
        if len(v.shape) >= 3 and self.flag():  # batched: both operands computed
            other = self.input(v.shape[:-2] + (k, n))
            name = self.node("MatMul", [v.name, other.name])[0]
        else:
            w = self.const((self.rng.standard_normal((k, n)) / math.sqrt(k)).astype(np.float32))
            name = self.node("MatMul", [v.name, w])[0]
        out = v.shape[:-1] + (n,) if len(v.shape) >= 2 else (n,)
        self.push(name, out)

    def conv(self) -> None:
        """Conv with groups, strides, pads and dilations; or a 3-D conv of a fresh 5-D input,
        reshaped to 4-D."""
        if self.draw(st.integers(0, 3)) == 0:
            n, c = self.draw(st.integers(1, 2)), self.draw(st.integers(1, 3))
            x = self.input((n, c, *self.shape(3, low=2)))
            self.pool.remove(x)
            spatial, groups = 3, 1
        else:
            x, spatial = self.image(), 2
            c = x.shape[1]
            groups = self.one_of([g for g in range(1, c + 1) if c % g == 0])
        m = groups * self.draw(st.integers(1, 3))
        kernel = [self.draw(st.integers(1, min(3, s))) for s in x.shape[2:]]
        strides = [self.draw(st.integers(1, 2)) for _ in kernel]
        dilations = [
            1 if k == 1 or (k - 1) * 2 >= s else self.draw(st.integers(1, 2))
            for k, s in zip(kernel, x.shape[2:], strict=True)
        ]
        pads = [self.draw(st.integers(0, 1)) for _ in range(2 * spatial)]
        out_sp = [
            (s + pads[d] + pads[d + spatial] - dilations[d] * (kernel[d] - 1) - 1) // strides[d] + 1
            for d, s in enumerate(x.shape[2:])
        ]
        w = self.rng.standard_normal((m, c // groups, *kernel)) / math.sqrt(c // groups * math.prod(kernel))
        operands = [x.name, self.const(w.astype(np.float32), "w")]
        if self.flag():
            operands.append(self.const((self.rng.standard_normal(m) * 0.1).astype(np.float32), "b"))
        attrs = dict(group=groups, strides=strides, pads=pads, dilations=dilations, kernel_shape=kernel)
        y = self.node("Conv", operands, **attrs)[0]
        out = (x.shape[0], m, *out_sp)
        if spatial == 3:
            out4 = (out[0], out[1] * out[2], out[3], out[4])
            y = self.node("Reshape", [y, self.const(np.array(out4, np.int64), "shape")])[0]
            out = out4
        if self.flag():
            y = self.node("Relu", [y])[0]
        self.push(y, out)

    STEPS = (
        "unary", "exact_unary", "binary", "binary", "where", "cast", "quantize", "gather",
        "gather_elements", "expand", "shape_subgraph", "split", "slice", "transpose", "concat",
        "tile_or_trilu", "pad", "resize", "reduce", "arg_or_topk", "softmax_or_norm", "matmul", "conv",
    )  # fmt: skip

    def step(self) -> None:
        getattr(self, self.one_of(self.STEPS))()

    def finish(self) -> Case:
        """Outputs: the newest value, and now and then an older one too."""
        outputs = [self.pool[-1]]
        if len(self.pool) > 2 and self.flag():
            older = self.pool[self.draw(st.integers(0, len(self.pool) - 2))]
            if older.name not in self.feed:
                outputs.append(older)
        infos = [helper.make_tensor_value_info(v.name, TensorProto.FLOAT, list(v.shape)) for v in outputs]
        graph = helper.make_graph(self.nodes, "fuzz", self.inputs, infos, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        return Case(model, dict(self.feed), [v.exact for v in outputs])


@st.composite
def onnx_graphs(draw, steps: int = 6) -> Case:
    b = OnnxBuilder(draw, np.random.default_rng(draw(st.integers(0, 2**32 - 1))))
    b.input(b.shape(draw(st.integers(1, 4))))
    for _ in range(draw(st.integers(1, steps))):
        b.step()
    return b.finish()
