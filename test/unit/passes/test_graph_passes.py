"""The graph passes (tg-fuse, tg-fold-batchnorm, tg-fold-constants, tg-plan-memory) on
random tg graphs: the reference interpreter must give the same outputs before and after
each pass (bit for bit for the passes that only regroup or annotate, allclose for the
folding ones), and the IR after each pass must have the shape its docstring promises.
Last, the whole pipeline on ResNet-18.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass, PassPipeline

from tessel.dialects import tg
from tessel.dialects.context import make_context
from tessel.dialects.tg.base import (
    Elementwise,
    FusionCategory,
    bool_attr,
    float_attr,
    fusion_category,
    int_attr,
    integer,
    ints_attr,
)
from tessel.dialects.tg.nn import conv_output_size
from tessel.frontends.onnx import import_model
from tessel.ir import dtypes
from tessel.ir.source import parse_module, print_module, verify
from tessel.ir.weights import WeightStore, with_weights
from tessel.passes.tg.fold_batchnorm import TgFoldBatchnorm
from tessel.passes.tg.fold_constants import TgFoldConstants
from tessel.passes.tg.fuse import TgFuse
from tessel.passes.tg.layout import MIN_PADDED_OUTPUTS, TgLayout
from tessel.passes.tg.plan_memory import TgPlanMemory
from tessel.targets.reference.interpreter import run

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "models"))
import resnet18  # noqa: E402

SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
ANCHORS = (FusionCategory.COMPLEX_OUT_FUSABLE, FusionCategory.REDUCTION)
DATA_OPS = (tg.WeightOp, tg.ConstantOp)

# --------------------------------------------------------------------------- random graphs


def shape_of(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())  # type: ignore[attr-defined]


def broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    return len(shape) <= len(target) and all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


@dataclass
class Graph:
    module: ModuleOp
    inputs: list[np.ndarray]
    weights: dict[str, np.ndarray]

    def __repr__(self) -> str:  # hypothesis shows the failing graph as IR
        return "\n" + print_module(self.module)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))


@dataclass
class Builder:
    """Draws a random DAG of tg ops into one function body, with the arrays behind it."""

    draw: object
    rng: np.random.Generator
    exp: bool = True  # allow tg.exp (unbounded; kept out of the tolerance-based tests)
    indices: bool = False  # allow max_pool2d with its second (indices) result
    block: Block = field(default_factory=Block)
    inputs: list[np.ndarray] = field(default_factory=list)
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    pool: list[SSAValue] = field(default_factory=list)
    extra_outputs: list[SSAValue] = field(default_factory=list)

    # ------------------------------------------------------------- values

    def flag(self) -> bool:
        return self.draw(st.booleans())

    def one_of(self, items):
        return self.draw(st.sampled_from(items))

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def push(self, op: Operation) -> SSAValue:
        value = self.add(op)
        self.pool.append(value)
        return value

    def input(self, shape, array: np.ndarray | None = None) -> SSAValue:
        arg = self.block.insert_arg(TensorType(f32, list(shape)), len(self.block.args))
        arg.name_hint = f"in{len(self.inputs)}"
        self.inputs.append(self.rng.standard_normal(shape).astype(np.float32) if array is None else array)
        return arg

    def const(self, array: np.ndarray) -> SSAValue:
        """An inline tg.constant (small arrays, sometimes) or a tg.weight."""
        array = np.asarray(array, np.float32)
        if array.size <= tg.INLINE_LIMIT and self.flag():
            return self.add(tg.constant_op(array))
        name = f"w{len(self.weights)}"
        self.weights[name] = array
        value = self.add(tg.weight_op(name, TensorType(f32, list(array.shape))))
        value.name_hint = name
        return value

    def param(self, array: np.ndarray) -> SSAValue:
        """A parameter: a compile-time constant, or now and then a run-time input."""
        if self.draw(st.integers(0, 15)) == 0:
            return self.input(array.shape, np.asarray(array, np.float32))
        return self.const(array)

    def pick(self, accept=lambda shape: True) -> SSAValue | None:
        """A value of the pool (shrinking towards the newest); older ones get several uses."""
        candidates = [v for v in self.pool if accept(shape_of(v))]
        if not candidates:
            return None
        return candidates[len(candidates) - 1 - self.draw(st.integers(0, len(candidates) - 1))]

    def new_shape(self, rank: int) -> list[int]:
        return [self.draw(st.integers(1, 4)) for _ in range(rank)]

    def image(self) -> SSAValue:
        v = self.pick(lambda s: len(s) == 4)
        if v is None:
            n, c = self.draw(st.integers(1, 2)), self.draw(st.integers(1, 4))
            v = self.input([n, c, self.draw(st.integers(3, 6)), self.draw(st.integers(3, 6))])
            self.pool.append(v)
        return v

    # ------------------------------------------------------------- steps

    def unary(self) -> None:
        ops = [tg.ReluOp, tg.NegOp, tg.TanhOp, tg.SigmoidOp] + ([tg.ExpOp] if self.exp else [])
        self.push(self.one_of(ops).make([self.pick()]))

    def binary(self) -> None:
        v = self.pick()
        shape = shape_of(v)
        how = self.one_of(["pool", "param", "moved"])
        if how == "pool":
            u = self.pick(lambda s: broadcasts_to(s, shape))
        elif how == "moved" and len(shape) >= 2:
            u = self.moved(shape)
        else:
            keep = self.draw(st.integers(0, len(shape)))
            bshape = [1 if self.flag() else n for n in shape[len(shape) - keep :]]
            u = self.param(self.rng.standard_normal(bshape))
        a, b = (v, u) if self.flag() else (u, v)
        self.push(self.one_of([tg.AddOp, tg.SubOp, tg.MulOp]).make([a, b]))

    def moved(self, shape: tuple[int, ...]) -> SSAValue:
        """A fresh value of `shape` made by data movement (not element-wise): a transpose
        or a reshape of a new input, used once."""
        if self.flag():
            perm = self.draw(st.permutations(range(len(shape))))
            source_shape = [0] * len(shape)
            for d, p in enumerate(perm):
                source_shape[p] = shape[d]  # the result's dim d is the source's dim perm[d]
            source = self.input(source_shape)
            return self.add(tg.TransposeOp.make([source], {"perm": ints_attr(perm)}))
        source = self.input([math.prod(shape)])
        return self.add(tg.ReshapeOp.make([source], result_types=[TensorType(f32, list(shape))]))

    def reshape(self) -> None:
        v = self.pick()
        shape = list(shape_of(v))
        how = self.one_of(["flat", "merge", "split", "unit", "flatten"])
        if how == "flatten" and shape:
            self.push(tg.FlattenOp.make([v], {"axis": int_attr(self.draw(st.integers(0, len(shape))))}))
            return
        if how == "merge" and len(shape) >= 2:
            i = self.draw(st.integers(0, len(shape) - 2))
            new = shape[:i] + [shape[i] * shape[i + 1]] + shape[i + 2 :]
        elif how == "split" and any(n >= 4 and n % 2 == 0 for n in shape):
            i = next(i for i, n in enumerate(shape) if n >= 4 and n % 2 == 0)
            new = shape[:i] + [2, shape[i] // 2] + shape[i + 1 :]
        elif how == "unit" and len(shape) < 5:
            i = self.draw(st.integers(0, len(shape)))
            new = shape[:i] + [1] + shape[i:]
        else:
            new = [math.prod(shape)]
        self.push(tg.ReshapeOp.make([v], result_types=[TensorType(f32, new)]))

    def transpose(self) -> None:
        v = self.pick(lambda s: len(s) >= 2)
        if v is None:
            return self.reshape()
        perm = self.draw(st.permutations(range(len(shape_of(v)))))
        self.push(tg.TransposeOp.make([v], {"perm": ints_attr(perm)}))

    def reduce(self) -> None:
        v = self.pick(lambda s: len(s) >= 1)
        if v is None:
            return self.unary()
        rank = len(shape_of(v))
        axes = sorted(self.draw(st.sets(st.integers(0, rank - 1), min_size=1)))
        op = self.one_of([tg.ReduceSumOp, tg.ReduceMeanOp, tg.ReduceMaxOp])
        self.push(op.make([v], {"axes": ints_attr(axes), "keepdims": bool_attr(self.flag())}))

    def softmax(self) -> None:
        v = self.pick(lambda s: len(s) >= 1)
        if v is None:
            return self.unary()
        axis = self.draw(st.integers(0, len(shape_of(v)) - 1))
        self.push(tg.SoftmaxOp.make([v], {"axis": int_attr(axis)}))

    def batch_norm(self, v: SSAValue | None = None) -> SSAValue:
        v = v if v is not None else self.pick(lambda s: len(s) >= 2)
        if v is None:
            v = self.input(self.new_shape(2))
        c = shape_of(v)[1]
        params = [
            self.param(self.rng.uniform(0.5, 2.0, c)),  # scale
            self.param(self.rng.standard_normal(c)),  # bias
            self.param(self.rng.standard_normal(c)),  # mean
            self.param(self.rng.uniform(0.5, 2.0, c)),  # var
        ]
        eps = self.one_of([1e-5, 1e-3])
        return self.push(tg.BatchNormOp.make([v, *params], {"epsilon": float_attr(eps)}))

    def epilogue(self, anchor: Operation, channels_at: int) -> None:
        """What follows a conv or gemm in a network: batch_norm, a residual or bias add, relu.
        The anchor's own result joins the pool (gets more uses) only sometimes."""
        y = self.add(anchor)
        if self.draw(st.integers(0, 3)) == 0:
            self.pool.append(y)
        if self.flag():
            y = self.batch_norm(y)
        if self.flag():
            shape = shape_of(y)
            same = self.pick(lambda s: s == shape)
            if same is None or same is y or self.flag():
                bias_shape = [shape[1]] + [1] * (len(shape) - 2) if channels_at == 1 else [shape[-1]]
                same = self.param(self.rng.standard_normal(bias_shape))
            y = self.push(tg.AddOp.make([y, same]))
        if self.flag():
            y = self.push(tg.ReluOp.make([y]))
        if y not in self.pool:
            self.pool.append(y)

    def conv_op(self, x: SSAValue, m=None, kernel=None, strides=None, pads=None, dilations=None) -> tg.Conv2dOp:
        """A conv2d on x; what the caller leaves out is drawn."""
        n, c, h, w = shape_of(x)
        groups = 1 if m is not None else self.one_of([g for g in range(1, c + 1) if c % g == 0])
        m = m if m is not None else groups * self.draw(st.integers(1, 3))
        kernel = kernel or [self.draw(st.integers(1, 3)) for _ in range(2)]
        strides = strides or [self.draw(st.integers(1, 2)) for _ in range(2)]
        dilations = dilations or [self.draw(st.integers(1, 2)) for _ in range(2)]
        pads = pads or [self.draw(st.integers(0, 1)) for _ in range(4)]
        for i, size in enumerate((h, w)):
            if conv_output_size(size, kernel[i], strides[i], pads[i], pads[i + 2], dilations[i]) < 1:
                kernel[i], dilations[i] = 1, 1
        cg = c // groups
        weight = self.param(self.rng.standard_normal((m, cg, *kernel)) / math.sqrt(cg * math.prod(kernel)))
        operands = [x, weight]
        if self.flag():
            operands.append(self.param(self.rng.standard_normal(m) * 0.1))
        props = {
            "strides": ints_attr(strides),
            "pads": ints_attr(pads),
            "dilations": ints_attr(dilations),
            "groups": int_attr(groups),
        }
        return tg.Conv2dOp.make(operands, props)

    def conv(self) -> None:
        self.epilogue(self.conv_op(self.image()), channels_at=1)

    def residual(self) -> None:
        """A ResNet basic block's tail: conv (+ batch_norm) added to a shortcut (the input,
        a 1x1 conv, or a transposed value), then relu."""
        x = self.image()
        c = shape_of(x)[1]
        stride = self.draw(st.integers(1, 2))
        m = c if stride == 1 and self.flag() else self.draw(st.integers(1, 4))
        y = self.add(self.conv_op(x, m, [3, 3], [stride] * 2, [1, 1, 1, 1], [1, 1]))
        if self.flag():
            y = self.batch_norm(y)
        how = self.one_of(["identity", "conv", "moved"])
        if how == "identity" and shape_of(x) == shape_of(y):
            shortcut = x
        elif how == "conv":
            shortcut = self.add(self.conv_op(x, m, [1, 1], [stride] * 2, [0, 0, 0, 0], [1, 1]))
            if self.flag():
                shortcut = self.batch_norm(shortcut)
        else:
            shortcut = self.moved(shape_of(y))
        y = self.push(tg.AddOp.make([y, shortcut] if self.flag() else [shortcut, y]))
        if self.flag():
            self.push(tg.ReluOp.make([y]))

    def gemm(self) -> None:
        a = self.pick(lambda s: len(s) == 2)
        if a is None:
            v = self.pick(lambda s: len(s) >= 2)
            if v is not None:
                a = self.push(tg.FlattenOp.make([v], {"axis": int_attr(1)}))
            else:
                a = self.input(self.new_shape(2))
        trans_a, trans_b = self.flag(), self.flag()
        m, k = shape_of(a)[::-1] if trans_a else shape_of(a)
        n = self.draw(st.integers(1, 5))
        b = self.param(self.rng.standard_normal((n, k) if trans_b else (k, n)) / math.sqrt(k))
        operands = [a, b]
        c_shape = self.one_of([None, (n,), (m, n), (1, n), (m, 1), ()])
        if c_shape is not None:
            operands.append(self.param(self.rng.standard_normal(c_shape)))
        props = {
            "alpha": float_attr(self.one_of([1.0, 0.5])),
            "beta": float_attr(self.one_of([1.0, 0.0, 2.0])),
            "trans_a": bool_attr(trans_a),
            "trans_b": bool_attr(trans_b),
        }
        self.epilogue(tg.GemmOp.make(operands, props), channels_at=-1)

    def pool_op(self) -> None:
        x = self.image()
        kind = self.one_of(["max", "avg", "global"])
        if kind == "global":
            self.push(tg.GlobalAvgPool2dOp.make([x]))
            return
        _, _, h, w = shape_of(x)
        kernel = [self.draw(st.integers(1, min(3, size))) for size in (h, w)]
        pads = [self.draw(st.integers(0, k - 1)) for k in kernel] * 2
        props = {
            "kernel": ints_attr(kernel),
            "strides": ints_attr([self.draw(st.integers(1, 2)) for _ in range(2)]),
            "pads": ints_attr(pads),
            "dilations": ints_attr([1, 1]),
            "ceil_mode": bool_attr(False),
        }
        if kind == "avg":
            props["count_include_pad"] = bool_attr(self.flag())
            self.push(tg.AvgPool2dOp.make([x], props))
            return
        (values,) = tg.MaxPool2dOp.infer_result_types([x.type], props)
        if self.indices and self.flag():
            op = tg.MaxPool2dOp.make([x], props, [values, TensorType(i64, values.get_shape())])
            self.push(op)
            self.extra_outputs.append(op.results[1])
        else:
            self.push(tg.MaxPool2dOp.make([x], props))

    def constant_expr(self) -> None:
        """A small computation on constants alone (what tg-fold-constants evaluates)."""
        shape = self.new_shape(self.draw(st.integers(0, 3)))
        a = self.const(self.rng.standard_normal(shape))
        b = self.const(self.rng.standard_normal([1 if self.flag() else n for n in shape]))
        value = self.add(self.one_of([tg.AddOp, tg.MulOp, tg.SubOp]).make([a, b]))
        if self.flag():
            value = self.add(self.one_of([tg.NegOp, tg.TanhOp, tg.ReluOp]).make([value]))
        self.pool.append(value)

    STEPS = (
        "unary",
        "unary",
        "binary",
        "binary",
        "reshape",
        "transpose",
        "reduce",
        "softmax",
        "batch_norm",
        "conv",
        "conv",
        "residual",
        "residual",
        "gemm",
        "gemm",
        "pool_op",
        "constant_expr",
    )

    def step(self) -> None:
        getattr(self, self.one_of(self.STEPS))()

    def finish(self) -> Graph:
        sinks = [v for v in self.pool if not v.uses]
        others = [v for v in self.pool if v.uses and self.draw(st.integers(0, 4)) == 0]
        outputs = list(dict.fromkeys([*others, *sinks, *self.extra_outputs]))
        self.block.add_op(func.ReturnOp(*outputs))
        fn = func.FuncOp("main", ([a.type for a in self.block.args], [v.type for v in outputs]), Region(self.block))
        module = ModuleOp([fn])
        verify(module)
        return Graph(module, self.inputs, self.weights)


@st.composite
def graphs(draw, exp: bool = True, indices: bool = False) -> Graph:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = Builder(draw, rng, exp=exp, indices=indices)
    b.pool.append(b.input(b.new_shape(draw(st.integers(1, 4)))))
    for _ in range(draw(st.integers(1, 10))):
        b.step()
    return b.finish()


# --------------------------------------------------------------------------- helpers


def apply(module: ModuleOp, *passes: ModulePass, store: WeightStore | None = None) -> ModuleOp:
    """Run the passes on a copy of the module, then verify it."""
    ctx = make_context()
    module = module.clone()
    PassPipeline(with_weights(passes, store)).apply(ctx, module)
    verify(module)
    return module


def main_block(module: ModuleOp) -> Block:
    (fn,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    return fn.body.block


def computations(module: ModuleOp) -> list[str]:
    """The names of the tg ops that compute (not data, not structure), anywhere."""
    return sorted(op.name for op in module.walk() if isinstance(op, tg.TgOp) and not isinstance(op, DATA_OPS))


def assert_bitwise_equal(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()


def assert_close(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        finite = np.abs(w[np.isfinite(w)]) if w.size else np.zeros(0)
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5 * scale, equal_nan=True)


# --------------------------------------------------------------------------- tg-fuse


def upstream(op: Operation, members: set[Operation]) -> set[Operation]:
    """The members that feed `op`, directly or through other members."""
    found: set[Operation] = set()
    work = [op]
    while work:
        for operand in work.pop().operands:
            producer = operand.owner
            if isinstance(producer, Operation) and producer in members and producer not in found:
                found.add(producer)
                work.append(producer)
    return found


def check_fusion_rules(module: ModuleOp) -> None:
    for op in main_block(module).ops:
        if isinstance(op, func.ReturnOp | tg.WeightOp | tg.ConstantOp):
            continue
        assert isinstance(op, tg.FusedOp), f"{op.name} is outside any tg.fused"
        inner = [o for o in op.body.block.ops if not isinstance(o, tg.YieldOp)]
        assert inner and not any(isinstance(o, DATA_OPS) for o in inner), "weights and constants stay outside"
        assert list(op.body.block.last_op.operands) == list(inner[-1].results), "the group yields its sink"
        assert op.kind.data == "_".join(o.name.removeprefix("tg.") for o in inner)
        if len(inner) == 1:
            continue
        assert all(len(o.results) == 1 for o in inner), "ops with several results are alone"
        assert all(fusion_category(o) is not FusionCategory.OPAQUE for o in inner), "opaque ops are alone"
        members = set(inner)
        anchors = [o for o in inner if fusion_category(o) in ANCHORS]
        assert len(anchors) <= 1, f"two anchors in {op.kind.data}"
        if not anchors:
            continue
        anchor = anchors[0]
        feeding = upstream(anchor, members)
        if fusion_category(anchor) is FusionCategory.COMPLEX_OUT_FUSABLE:
            assert not feeding, f"{op.kind.data}: nothing may feed a complex-out-fusable op inside its group"
        rest = [o for o in inner if o is not anchor and o not in feeding]
        assert all(o.has_trait(Elementwise) for o in rest), f"{op.kind.data}: only element-wise ops after the anchor"


@SETTINGS
@given(graphs(indices=True))
def test_fuse_preserves_outputs_bitwise(graph: Graph):
    fused = apply(graph.module, TgFuse())
    check_fusion_rules(fused)
    assert computations(fused) == computations(graph.module), "every op lands in exactly one group"
    want = run(graph.module, graph.inputs, graph.weights)
    assert_bitwise_equal(run(fused, graph.inputs, graph.weights), want)


def test_fuse_rules_can_fail():
    """The structural check rejects a group that breaks the rules (two anchors)."""
    text = """
    func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %y = tg.fused "matmul_matmul"(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
      ^bb0(%x: tensor<2x2xf32>):
        %m = tg.matmul %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
        %n = tg.matmul %m, %m : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
        tg.yield %n : tensor<2x2xf32>
      }
      func.return %y : tensor<2x2xf32>
    }
    """
    module = parse_module(make_context(), text)
    with pytest.raises(AssertionError, match="two anchors"):
        check_fusion_rules(module)


# --------------------------------------------------------------------------- tg-plan-memory


def is_view(op: Operation) -> bool:
    if isinstance(op, tg.ReshapeOp | tg.FlattenOp):
        return True
    if isinstance(op, tg.FusedOp):
        inner = [o for o in op.body.block.ops if not isinstance(o, tg.YieldOp)]
        return all(isinstance(o, tg.ReshapeOp | tg.FlattenOp) for o in inner)
    return False


def check_memory_plan(module: ModuleOp) -> tuple[int, int]:
    """Recompute buffers and lifetimes from the IR; check the placement. -> (arena, unplanned)"""
    fn = main_block(module).parent_op()
    ops = list(main_block(module).ops)
    position = {op: i for i, op in enumerate(ops)}
    returned = set(ops[-1].operands)
    buffers: dict[SSAValue, list[SSAValue]] = {}  # the producing value -> every value naming that memory
    owner: dict[SSAValue, SSAValue] = {}
    for op in ops:
        if isinstance(op, func.ReturnOp | tg.WeightOp | tg.ConstantOp):
            assert "tg.offset" not in op.attributes
            continue
        if is_view(op) and op.operands[0] in owner:
            assert "tg.offset" not in op.attributes, "a view has no buffer of its own"
            owner[op.results[0]] = owner[op.operands[0]]
            buffers[owner[op.operands[0]]].append(op.results[0])
            continue
        (result,) = op.results
        owner[result] = result
        buffers[result] = [result]
    placed = []  # (start, end, offset, size)
    for value, names in buffers.items():
        op = value.owner
        if any(v in returned for v in names):
            assert "tg.offset" not in op.attributes, "function results are not placed"
            continue
        offset = op.attributes["tg.offset"].value.data
        t = value.type
        size = math.prod(t.get_shape()) * dtypes.to_numpy(t.element_type).itemsize
        start = position[op]
        end = max([start, *(position[use.operation] for v in names for use in v.uses)])
        assert offset % 64 == 0 and offset >= 0
        placed.append((start, end, offset, size))
    for i, (s1, e1, o1, n1) in enumerate(placed):
        for s2, e2, o2, n2 in placed[i + 1 :]:
            if s1 <= e2 and s2 <= e1:
                assert o1 + n1 <= o2 or o2 + n2 <= o1, f"live buffers overlap: {(s1, e1, o1, n1)} {(s2, e2, o2, n2)}"
    memory = fn.attributes["tg.memory"]
    arena = memory.data["arena"].value.data
    unplanned = memory.data["unplanned"].value.data
    assert arena == max([0, *(o + n for _, _, o, n in placed)])
    # unplanned: every buffer at its own aligned offset; a plan is never worse than that
    assert unplanned == sum(-(-n // 64) * 64 for *_, n in placed)
    assert arena <= unplanned
    return arena, unplanned


@SETTINGS
@given(graphs(), st.booleans())  # no max_pool2d indices: tg.offset has room for one result per op
def test_plan_memory_preserves_outputs_and_separates_live_buffers(graph: Graph, fuse_first: bool):
    passes = (TgFuse(), TgPlanMemory()) if fuse_first else (TgPlanMemory(),)
    planned = apply(graph.module, *passes)
    check_memory_plan(planned)
    want = run(graph.module, graph.inputs, graph.weights)
    assert_bitwise_equal(run(planned, graph.inputs, graph.weights), want)


def test_plan_memory_check_can_fail():
    """The independent check notices two live buffers placed at the same offset."""
    text = """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = tg.relu %x : tensor<4xf32>
      %b = tg.neg %x : tensor<4xf32>
      %c = tg.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      func.return %c : tensor<4xf32>
    }
    """
    module = apply(parse_module(make_context(), text), TgPlanMemory())
    assert check_memory_plan(module) == (80, 128)
    b = list(main_block(module).ops)[1]
    b.attributes["tg.offset"] = list(main_block(module).ops)[0].attributes["tg.offset"]
    with pytest.raises(AssertionError, match="live buffers overlap"):
        check_memory_plan(module)


# --------------------------------------------------------------------------- folding


def foldable_batch_norms(module: ModuleOp) -> int:
    """batch_norms on a single-use conv2d/gemm whose parameters are all constants."""
    count = 0
    for op in module.walk():
        if not isinstance(op, tg.BatchNormOp):
            continue
        producer = op.input.owner
        if (
            isinstance(producer, tg.Conv2dOp | tg.GemmOp)
            and producer.results[0].has_one_use()
            and all(tg.is_constant_like(v) for v in (*op.operands[1:], *producer.operands[1:]))
        ):
            count += 1
    return count


def count(module: ModuleOp, op_type: type) -> int:
    return sum(isinstance(op, op_type) for op in module.walk())


def weight_names(module: ModuleOp) -> set[str]:
    return {op.weight_name for op in module.walk() if isinstance(op, tg.WeightOp)}


def constant_operands(op: Operation) -> bool:
    return bool(op.operands) and all(tg.is_constant_like(v) for v in op.operands)


@SETTINGS
@given(graphs(exp=False))
def test_fold_batchnorm_preserves_outputs(graph: Graph):
    foldable = foldable_batch_norms(graph.module)
    folded = apply(graph.module, TgFoldBatchnorm())
    assert count(folded, tg.BatchNormOp) == count(graph.module, tg.BatchNormOp) - foldable
    assert count(folded, tg.Conv2dOp) == count(graph.module, tg.Conv2dOp)
    assert count(folded, tg.GemmOp) == count(graph.module, tg.GemmOp)
    want = run(graph.module, graph.inputs, graph.weights)
    assert_close(run(folded, graph.inputs, graph.weights), want)


@SETTINGS
@given(graphs(exp=False))
def test_fold_batchnorm_then_constants_with_a_store(graph: Graph):
    foldable = foldable_batch_norms(graph.module)
    store = WeightStore(graph.weights)
    folded = apply(graph.module, TgFoldBatchnorm(), TgFoldConstants(), store=store)
    assert count(folded, tg.BatchNormOp) <= count(graph.module, tg.BatchNormOp) - foldable
    for op in folded.walk():
        if isinstance(op, tg.TgOp) and not isinstance(op, DATA_OPS):
            assert not constant_operands(op), f"{op.name} on constants only was not folded"
    for name in weight_names(folded):
        assert name in store
    want = run(graph.module, graph.inputs, graph.weights)
    assert_close(run(folded, graph.inputs, store), want)


@SETTINGS
@given(graphs(exp=False))
def test_fold_constants_without_a_store(graph: Graph):
    """No store given: ops reading a tg.weight stay, and so do large results."""
    folded = apply(graph.module, TgFoldConstants())
    assert weight_names(folded) <= weight_names(graph.module), "no weight can be created without a store"
    for op in folded.walk():
        if isinstance(op, tg.TgOp) and not isinstance(op, DATA_OPS) and constant_operands(op):
            reads_weight = any(isinstance(v.owner, tg.WeightOp) for v in op.operands)
            too_large = any(math.prod(r.type.get_shape()) > tg.INLINE_LIMIT for r in op.results)
            assert reads_weight or too_large, f"{op.name} on inline constants was not folded"
    want = run(graph.module, graph.inputs, graph.weights)
    assert_close(run(folded, graph.inputs, graph.weights), want)


def test_fold_constants_without_a_store_leaves_weights_alone():
    text = """
    func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
      %w = tg.weight @w : tensor<3xf32>
      %c = tg.constant dense<[1.0, -2.0, 4.0]> : tensor<3xf32>
      %n = tg.neg %w : tensor<3xf32>
      %m = tg.mul %c, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %y = tg.add %x, %m : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      func.return %n, %y : tensor<3xf32>, tensor<3xf32>
    }
    """
    module = parse_module(make_context(), text)
    folded = apply(module, TgFoldConstants())
    ops = [op for op in main_block(folded).ops if not isinstance(op, func.ReturnOp)]
    assert [op.name for op in ops] == ["tg.weight", "tg.neg", "tg.constant", "tg.add"]
    np.testing.assert_array_equal(tg.constant_value(ops[2]), np.array([1.0, 4.0, 16.0], np.float32))


def test_fold_constants_names_new_weights_apart_from_old_ones():
    """A large folded result is stored under a fresh name: `w` is taken, so `w.1`."""
    text = """
    func.func @main(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
      %w = tg.weight @w : tensor<4x5xf32>
      %v = tg.neg %w : tensor<4x5xf32>
      %y = tg.add %x, %v : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
      %z = tg.add %y, %w : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
      func.return %z : tensor<4x5xf32>
    }
    """
    module = parse_module(make_context(), text)
    list(main_block(module).ops)[1].results[0].name_hint = "w"
    w = np.arange(20, dtype=np.float32).reshape(4, 5)
    store = WeightStore({"w": w})
    folded = apply(module, TgFoldConstants(), store=store)
    assert store.created == ["w.1"]
    np.testing.assert_array_equal(store["w.1"], -w)
    assert weight_names(folded) == {"w", "w.1"}
    x = np.ones((4, 5), np.float32)
    assert_bitwise_equal(run(folded, [x], store), run(module, [x], {"w": w}))


# --------------------------------------------------------------------------- ResNet-18


@pytest.fixture(scope="module")
def resnet():
    result = import_model(resnet18.build(batch=1, image=64))
    verify(result.module)
    return result


def test_resnet18_pipeline(resnet):
    convs = count(resnet.module, tg.Conv2dOp)
    assert convs == 20
    store = WeightStore(resnet.weights)
    fused = apply(resnet.module, TgFoldBatchnorm(), TgFoldConstants(), TgFuse(), store=store)
    check_fusion_rules(fused)
    assert count(fused, tg.BatchNormOp) == 0
    groups = [op for op in main_block(fused).ops if isinstance(op, tg.FusedOp)]
    kinds = [g.kind.data for g in groups]
    for g in groups:
        assert sum(isinstance(o, tg.Conv2dOp) for o in g.body.block.ops) <= 1, "one conv per group"
    assert sorted(kinds) == sorted(
        ["conv2d_relu"] * 9
        + ["conv2d_add_relu"] * 8
        + ["conv2d"] * 3
        + ["max_pool2d", "global_avg_pool2d", "flatten", "gemm"]
    )
    assert kinds[:2] == ["conv2d_relu", "max_pool2d"] and kinds[-3:] == ["global_avg_pool2d", "flatten", "gemm"]

    planned = apply(fused, TgPlanMemory())
    arena, unplanned = check_memory_plan(planned)
    assert 0 < arena < unplanned
    x = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
    (want,) = run(resnet.module, [x], resnet.weights)
    (got,) = run(planned, [x], store)
    assert want.shape == (1, 1000)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))


# --------------------------------------------------------------------------- tg-layout and the CPU


@SETTINGS
@given(graphs(exp=False))
def test_layout_preserves_outputs(graph: Graph):
    """tg-layout (blocked convolutions, pushed and cancelled transforms) computes the same."""
    laid_out = apply(graph.module, TgLayout())
    if count(graph.module, tg.Conv2dOp):
        blocked = count(laid_out, tg.Conv2dNchwcOp)
        eligible = sum(
            1
            for op in graph.module.walk()
            if isinstance(op, tg.Conv2dOp)
            and integer(op.properties, "groups") == 1
            and shape_of(op.result)[1] >= MIN_PADDED_OUTPUTS
        )
        assert blocked == eligible
    for op in laid_out.walk():
        if isinstance(op, tg.LayoutTransformOp):
            inner = op.input.owner
            assert not (isinstance(inner, tg.LayoutTransformOp) and inner.src == op.dst), "a transform pair survived"
    want = run(graph.module, graph.inputs, graph.weights)
    assert_close(run(laid_out, graph.inputs, graph.weights), want)


CPU_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


@CPU_SETTINGS
@given(graphs(exp=False))
def test_cpu_pipeline_matches_reference(graph: Graph):
    """Random graphs compiled through the whole CPU pipeline equal the reference semantics."""
    from tessel.pipelines.tensor import compile_for_cpu

    want = run(graph.module, graph.inputs, graph.weights)
    executable, _ = compile_for_cpu(graph.module.clone(), dict(graph.weights), threads=2)
    try:
        assert_close(executable.run(list(graph.inputs)), want)
    finally:
        executable.close()
