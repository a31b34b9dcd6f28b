"""The meaning of every `tg` op as xDSL interpreter functions over numpy arrays.

Each implementation calls the op's numpy kernel (`reference.py`) and rounds the result to
its declared element type, checking its declared shape, so a kernel that disagrees with the
op's type inference fails loudly instead of producing a plausible array. The reference
target (`targets/reference`) runs modules with these; the importer and tg-fold-constants
evaluate constant subgraphs with them.

An op may instead carry its meaning itself, beside its definition: a method
`evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]` (numpy in, numpy out,
one array per result, wide precision welcome: the result is rounded to its type here).
Every tg op class with such a method gets an interpreter implementation from
`register_evaluated`, so an op family needs no edit of this file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, FloatAttr, IntegerAttr, TensorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation

from tessel.dialects import tg
from tessel.dialects.tg import reference as K
from tessel.dialects.tg.base import flag, floating, integer, ints
from tessel.ir import dtypes
from tessel.ir.diagnostics import TesselError, op_location

_F = TypeVar("_F", bound=InterpreterFunctions)


def _typed(op: Operation, values: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Round each value to its result's element type and check its shape."""
    out = []
    for result, value in zip(op.results, values, strict=True):
        t = result.type
        assert isinstance(t, TensorType)
        arr = K.cast(np.asarray(value), dtypes.to_numpy(t.element_type))
        shape = t.get_shape()  # a dynamic dim (tg.nonzero's count) takes any size
        if len(shape) != arr.ndim or any(d not in (n, DYNAMIC_INDEX) for d, n in zip(shape, arr.shape)):
            raise AssertionError(f"reference {op.name} produced shape {arr.shape}, its type says {t}")
        out.append(arr)
    return tuple(out)


def _scalar(attr: Attribute | None) -> Any:
    if attr is None:
        return None
    if isinstance(attr, FloatAttr):
        return attr.value.data
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def _evaluated(op_type: type[Operation]):
    """An interpreter implementation of `op_type` through its own `evaluate` method."""

    def run(self: TgFunctions, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        with np.errstate(all="ignore"):
            return _typed(op, op.evaluate(tuple(args)))  # type: ignore[attr-defined]  # every op given here has one

    return impl(op_type)(run)


def evaluated_ops(functions: type[_F]) -> type[_F]:
    """Class decorator (under `register_impls`): give `functions` an implementation of every
    tg op that defines `evaluate` (an op with an explicit implementation keeps that one)."""
    for op_type in tg.OPS:
        name = f"run_{op_type.__name__}"
        if callable(getattr(op_type, "evaluate", None)) and not hasattr(functions, name):
            setattr(functions, name, _evaluated(op_type))
    return functions


@register_impls
@evaluated_ops
class TgFunctions(InterpreterFunctions):
    """Implementations of every `tg` op; weights come from a name -> array mapping."""

    def __init__(self, weights: Mapping[str, np.ndarray]):
        self.weights = weights

    # ------------------------------------------------------------------ structure

    @impl(tg.FusedOp)
    def run_fused(self, interp: Interpreter, op: tg.FusedOp, args: PythonValues) -> PythonValues:
        return interp.run_ssacfg_region(op.body, args, "tg.fused")

    @impl_terminator(tg.YieldOp)
    def run_yield(self, interp: Interpreter, op: tg.YieldOp, args: PythonValues):
        return ReturnedValues(args), ()

    # ------------------------------------------------------------------ data

    @impl(tg.WeightOp)
    def run_weight(self, interp: Interpreter, op: tg.WeightOp, args: PythonValues) -> PythonValues:
        value = np.asarray(self.weights[op.weight_name])
        t = op.result.type
        assert isinstance(t, TensorType)
        if value.shape != t.get_shape() or value.dtype != dtypes.to_numpy(t.element_type):
            raise TesselError(
                f"weight @{op.weight_name} holds {value.dtype}{list(value.shape)}, the IR declares {t}", op_location(op)
            )
        return (value,)

    @impl(tg.ConstantOp)
    def run_constant(self, interp: Interpreter, op: tg.ConstantOp, args: PythonValues) -> PythonValues:
        return (tg.constant_value(op),)

    # ------------------------------------------------------------------ element-wise

    def _binary(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        with np.errstate(over="ignore", invalid="ignore"):
            return _typed(op, [K.BINARY[op.name](K.wide(args[0]), K.wide(args[1]))])

    def _unary(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return _typed(op, [K.UNARY[op.name](K.wide(args[0]))])

    run_add = impl(tg.AddOp)(_binary)
    run_sub = impl(tg.SubOp)(_binary)
    run_mul = impl(tg.MulOp)(_binary)
    run_div = impl(tg.DivOp)(_binary)
    run_neg = impl(tg.NegOp)(_unary)
    run_exp = impl(tg.ExpOp)(_unary)
    run_sqrt = impl(tg.SqrtOp)(_unary)
    run_relu = impl(tg.ReluOp)(_unary)
    run_sigmoid = impl(tg.SigmoidOp)(_unary)
    run_tanh = impl(tg.TanhOp)(_unary)

    @impl(tg.GeluOp)
    def run_gelu(self, interp: Interpreter, op: tg.GeluOp, args: PythonValues) -> PythonValues:
        approximate = op.approximate.data if op.approximate is not None else "none"
        return _typed(op, [K.gelu(args[0], approximate)])

    @impl(tg.ShiftRightOp)
    def run_shift_right(self, interp: Interpreter, op: tg.ShiftRightOp, args: PythonValues) -> PythonValues:
        return _typed(op, [K.shift_right(args[0], op.amount.value.data)])

    @impl(tg.ClipOp)
    def run_clip(self, interp: Interpreter, op: tg.ClipOp, args: PythonValues) -> PythonValues:
        x = args[0]
        lo, hi = _scalar(op.min), _scalar(op.max)
        if lo is not None:
            x = np.maximum(x, np.asarray(lo, dtype=x.dtype))
        if hi is not None:
            x = np.minimum(x, np.asarray(hi, dtype=x.dtype))
        return _typed(op, [x])

    @impl(tg.CastOp)
    def run_cast(self, interp: Interpreter, op: tg.CastOp, args: PythonValues) -> PythonValues:
        return _typed(op, [args[0]])

    # ------------------------------------------------------------------ contractions

    @impl(tg.MatmulOp)
    def run_matmul(self, interp: Interpreter, op: tg.MatmulOp, args: PythonValues) -> PythonValues:
        return _typed(op, [K.matmul(args[0], args[1])])

    @impl(tg.GemmOp)
    def run_gemm(self, interp: Interpreter, op: tg.GemmOp, args: PythonValues) -> PythonValues:
        p = op.properties
        c = args[2] if len(args) == 3 else None
        y = K.gemm(
            args[0], args[1], c, floating(p, "alpha"), floating(p, "beta"), flag(p, "trans_a"), flag(p, "trans_b")
        )
        return _typed(op, [y])

    @impl(tg.Conv2dNchwcOp)
    def run_conv2d_nchwc(self, interp: Interpreter, op: tg.Conv2dNchwcOp, args: PythonValues) -> PythonValues:
        p = op.properties
        bias = args[2] if len(args) == 3 else None
        groups = integer(p, "groups") if "groups" in p else 1
        y = K.conv2d_nchwc(args[0], args[1], bias, ints(p, "strides"), ints(p, "pads"), ints(p, "dilations"), groups)
        return _typed(op, [y])

    @impl(tg.DepthwiseConv2dNchwcOp)
    def run_depthwise_conv2d_nchwc(
        self, interp: Interpreter, op: tg.DepthwiseConv2dNchwcOp, args: PythonValues
    ) -> PythonValues:
        p = op.properties
        bias = args[2] if len(args) == 3 else None
        y = K.depthwise_conv2d_nchwc(args[0], args[1], bias, ints(p, "strides"), ints(p, "pads"), ints(p, "dilations"))
        return _typed(op, [y])

    @impl(tg.DensePackedOp)
    def run_dense_packed(self, interp: Interpreter, op: tg.DensePackedOp, args: PythonValues) -> PythonValues:
        return _typed(op, [K.dense_packed(args[0], args[1], integer(op.properties, "columns"))])

    @impl(tg.Conv2dNchwcBf16Op)
    def run_conv2d_nchwc_bf16(self, interp: Interpreter, op: tg.Conv2dNchwcBf16Op, args: PythonValues) -> PythonValues:
        p = op.properties
        bias = args[2] if len(args) == 3 else None
        y = K.conv2d_nchwc_bf16(args[0], args[1], bias, ints(p, "strides"), ints(p, "pads"), ints(p, "dilations"))
        return _typed(op, [y])

    @impl(tg.Conv2dWinogradOp)
    def run_conv2d_winograd(self, interp: Interpreter, op: tg.Conv2dWinogradOp, args: PythonValues) -> PythonValues:
        bias = args[4] if len(args) == 5 else None
        x, u, bt, at = args[:4]
        return _typed(op, [K.conv2d_winograd(x, u, bt, at, bias, ints(op.properties, "pads"))])

    @impl(tg.DensePackedBf16Op)
    def run_dense_packed_bf16(self, interp: Interpreter, op: tg.DensePackedBf16Op, args: PythonValues) -> PythonValues:
        return _typed(op, [K.dense_packed_bf16(args[0], args[1], integer(op.properties, "columns"))])

    @impl(tg.DepthToSpaceOp)
    def run_depth_to_space(self, interp: Interpreter, op: tg.DepthToSpaceOp, args: PythonValues) -> PythonValues:
        return _typed(op, [K.depth_to_space(args[0], integer(op.properties, "blocksize"), op.mode.data)])

    @impl(tg.LayoutTransformOp)
    def run_layout_transform(self, interp: Interpreter, op: tg.LayoutTransformOp, args: PythonValues) -> PythonValues:
        return _typed(op, [K.to_layout(args[0], op.src.data, op.dst.data)])

    # ------------------------------------------------------------------ normalization

    @impl(tg.BatchNormOp)
    def run_batch_norm(self, interp: Interpreter, op: tg.BatchNormOp, args: PythonValues) -> PythonValues:
        x, scale, bias, mean, var = args
        return _typed(op, [K.batch_norm(x, scale, bias, mean, var, floating(op.properties, "epsilon"))])

    @impl(tg.LayerNormOp)
    def run_layer_norm(self, interp: Interpreter, op: tg.LayerNormOp, args: PythonValues) -> PythonValues:
        p = op.properties
        bias = args[2] if len(args) == 3 else None
        return _typed(op, [K.layer_norm(args[0], args[1], bias, integer(p, "axis"), floating(p, "epsilon"))])

    @impl(tg.SoftmaxOp)
    def run_softmax(self, interp: Interpreter, op: tg.SoftmaxOp, args: PythonValues) -> PythonValues:
        return _typed(op, [K.softmax(args[0], integer(op.properties, "axis"))])

    @impl(tg.LogSoftmaxOp)
    def run_log_softmax(self, interp: Interpreter, op: tg.LogSoftmaxOp, args: PythonValues) -> PythonValues:
        return _typed(op, [K.log_softmax(args[0], integer(op.properties, "axis"))])

    # ------------------------------------------------------------------ data movement

    @impl(tg.ReshapeOp)
    def run_reshape(self, interp: Interpreter, op: tg.ReshapeOp, args: PythonValues) -> PythonValues:
        return _typed(op, [args[0].reshape(op.result.type.get_shape())])

    @impl(tg.FlattenOp)
    def run_flatten(self, interp: Interpreter, op: tg.FlattenOp, args: PythonValues) -> PythonValues:
        return _typed(op, [args[0].reshape(op.result.type.get_shape())])

    @impl(tg.TransposeOp)
    def run_transpose(self, interp: Interpreter, op: tg.TransposeOp, args: PythonValues) -> PythonValues:
        return _typed(op, [np.transpose(args[0], ints(op.properties, "perm"))])

    @impl(tg.ConcatOp)
    def run_concat(self, interp: Interpreter, op: tg.ConcatOp, args: PythonValues) -> PythonValues:
        return _typed(op, [np.concatenate(args, axis=integer(op.properties, "axis"))])

    @impl(tg.SliceOp)
    def run_slice(self, interp: Interpreter, op: tg.SliceOp, args: PythonValues) -> PythonValues:
        p = op.properties
        return _typed(op, [K.slice_(args[0], ints(p, "starts"), ints(p, "steps"), op.result.type.get_shape())])

    @impl(tg.PadOp)
    def run_pad(self, interp: Interpreter, op: tg.PadOp, args: PythonValues) -> PythonValues:
        value = _scalar(op.value)
        y = K.pad(args[0], ints(op.properties, "pads"), op.mode.data, 0 if value is None else value)
        return _typed(op, [y])
