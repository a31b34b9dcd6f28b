"""Converters for constants, shapes and data movement (reductions: ops_reduce.py).

Shape-like operands (Reshape's shape, Slice's starts/ends/axes/steps, Pad's pads, the
axes of (un)squeezes) must be compile-time constants; the converters
resolve ONNX's conveniences (negative axes, -1 and 0 in shapes, clamped slice bounds)
into the canonical static form the tg ops carry.
"""

from __future__ import annotations

import math

import numpy as np
import onnx
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import scalar_attr

# --------------------------------------------------------------------------- constants


@converter("Constant")
def convert_constant(ctx: NodeContext) -> list[SSAValue]:
    if len(ctx.attrs) != 1:
        ctx.fail(f"expects exactly one value attribute, got {sorted(ctx.attrs)}")
    (name,) = ctx.attrs
    value = ctx.attr(name)
    arrays = {
        "value": lambda v: v,
        "value_float": lambda v: np.asarray(v, np.float32),
        "value_floats": lambda v: np.asarray(v, np.float32),
        "value_int": lambda v: np.asarray(v, np.int64),
        "value_ints": lambda v: np.asarray(v, np.int64),
    }
    if name not in arrays:
        ctx.fail(f"attribute {name} is not supported (value, value_float(s), value_int(s) are)")
    if ctx.attrs[name].type == onnx.AttributeProto.TENSOR and ctx.attrs[name].t.data_type == onnx.TensorProto.STRING:
        ctx.fail("string constants are not supported")
    return [ctx.constant(arrays[name](value), hint=ctx.node.output[0])]


@converter("Shape")
def convert_shape(ctx: NodeContext) -> list[SSAValue]:
    """Shapes are static, so Shape is a constant."""
    shape = np.asarray(ctx.shape(0), dtype=np.int64)
    rank = len(shape)
    start = ctx.attr("start", 0)
    end = ctx.attr("end", rank)
    start, end = (min(max(v + rank if v < 0 else v, 0), rank) for v in (start, end))
    return [ctx.constant(shape[start:end], hint=ctx.node.output[0])]


# --------------------------------------------------------------------------- reshapes


def _axis(ctx: NodeContext, axis: int, rank: int, inclusive: bool = False) -> int:
    """A non-negative axis; `inclusive` admits `rank` itself (Flatten's axis is in [-r, r])."""
    upper = rank + 1 if inclusive else rank
    if not -rank <= axis < upper:
        ctx.fail(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


@converter("Reshape", static=(1,))
def convert_reshape(ctx: NodeContext) -> list[SSAValue]:
    shape = ctx.const_ints(1, "shape")
    assert shape is not None
    src = ctx.shape(0)
    allowzero = ctx.attr("allowzero", 0)
    out = [src[i] if d == 0 and not allowzero else d for i, d in enumerate(shape)]
    if out.count(-1) > 1:
        ctx.fail(f"shape {shape} has more than one -1")
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        total = math.prod(src)
        if known == 0 or total % known:
            ctx.fail(f"cannot reshape {list(src)} into {shape}")
        out[out.index(-1)] = total // known
    if any(d < 0 for d in out) or math.prod(out) != math.prod(src):
        ctx.fail(f"cannot reshape {list(src)} into {shape}")
    return [ctx.reshape(ctx.input(0), out)]


@converter("DepthToSpace")
def convert_depth_to_space(ctx: NodeContext) -> list[SSAValue]:
    if len(ctx.shape(0)) != 4:
        ctx.fail(f"input must be 4-D (NCHW), got {list(ctx.shape(0))}")
    mode = ctx.attr("mode", "DCR")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode not in ("DCR", "CRD"):
        ctx.fail(f"mode must be DCR or CRD, got {mode!r}")
    props = {"blocksize": int_attr(ctx.attr("blocksize")), "mode": StringAttr(mode)}
    return [ctx.value(tg.DepthToSpaceOp, [ctx.input(0)], props)]


@converter("Flatten")
def convert_flatten(ctx: NodeContext) -> list[SSAValue]:
    axis = _axis(ctx, ctx.attr("axis", 1), len(ctx.shape(0)), inclusive=True)
    return [ctx.value(tg.FlattenOp, [ctx.input(0)], {"axis": int_attr(axis)})]


def _axes_operand(ctx: NodeContext, index: int) -> list[int] | None:
    """Axes from the input (opset 13+ Squeeze/Unsqueeze, 18+ reductions) or the attribute."""
    if ctx.has_input(index):
        return ctx.const_ints(index, "axes")
    axes = ctx.attr("axes")
    return None if axes is None else list(axes)


@converter("Squeeze", static=(1,))
def convert_squeeze(ctx: NodeContext) -> list[SSAValue]:
    src = ctx.shape(0)
    axes = _axes_operand(ctx, 1)
    if axes is None:
        drop = {d for d, n in enumerate(src) if n == 1}
    else:
        drop = {_axis(ctx, a, len(src)) for a in axes}
        if any(src[d] != 1 for d in drop):
            ctx.fail(f"cannot squeeze axes {axes} of shape {list(src)}: not all are 1")
    return [ctx.reshape(ctx.input(0), [n for d, n in enumerate(src) if d not in drop])]


@converter("Unsqueeze", static=(1,))
def convert_unsqueeze(ctx: NodeContext) -> list[SSAValue]:
    src = list(ctx.shape(0))
    axes = _axes_operand(ctx, 1)
    if axes is None:
        ctx.fail("axes are required")
    rank = len(src) + len(axes)
    inserted = sorted(_axis(ctx, a, rank) for a in axes)
    if len(set(inserted)) != len(inserted):
        ctx.fail(f"axes {axes} repeat")
    out = iter(src)
    return [ctx.reshape(ctx.input(0), [1 if d in inserted else next(out) for d in range(rank)])]


@converter("Transpose")
def convert_transpose(ctx: NodeContext) -> list[SSAValue]:
    rank = len(ctx.shape(0))
    perm = ctx.attr("perm", list(reversed(range(rank))))
    return [ctx.value(tg.TransposeOp, [ctx.input(0)], {"perm": ints_attr(perm)})]


@converter("Concat")
def convert_concat(ctx: NodeContext) -> list[SSAValue]:
    inputs = [ctx.input(i) for i in range(ctx.num_inputs)]
    axis = _axis(ctx, ctx.attr("axis"), len(ctx.shape(0)))
    return [ctx.value(tg.ConcatOp, inputs, {"axis": int_attr(axis)})]


# --------------------------------------------------------------------------- slice / pad


@converter("Slice", static=(1, 2, 3, 4))
def convert_slice(ctx: NodeContext) -> list[SSAValue]:
    src = ctx.shape(0)
    rank = len(src)
    starts = ctx.const_ints(1, "starts")
    ends = ctx.const_ints(2, "ends")
    assert starts is not None and ends is not None
    axes = ctx.const_ints(3, "axes") or list(range(len(starts)))
    steps = ctx.const_ints(4, "steps") or [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        ctx.fail(f"starts, ends, axes and steps differ in length: {starts}, {ends}, {axes}, {steps}")
    first, step_of, extent = [0] * rank, [1] * rank, list(src)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        d = _axis(ctx, axis, rank)
        n = src[d]
        if step == 0:
            ctx.fail(f"step of axis {axis} is zero")
        start, end = (v + n if v < 0 else v for v in (start, end))
        if step > 0:
            start, end = min(max(start, 0), n), min(max(end, 0), n)
            count = max(0, -(-(end - start) // step))
        else:
            start, end = min(max(start, 0), n - 1), min(max(end, -1), n - 1)
            count = max(0, -(-(start - end) // -step))
        first[d], step_of[d], extent[d] = (start if count else 0), step, count
    x = ctx.input(0)
    if first == [0] * rank and step_of == [1] * rank and extent == list(src):
        return [x]
    result = TensorType(ctx.type(0).element_type, extent)
    props = {"starts": ints_attr(first), "steps": ints_attr(step_of)}
    return [ctx.value(tg.SliceOp, [x], props, result_types=[result])]


@converter("Pad", static=(1, 2, 3))
def convert_pad(ctx: NodeContext) -> list[SSAValue]:
    rank = len(ctx.shape(0))
    raw = ctx.const_ints(1, "pads")
    assert raw is not None
    axes = ctx.const_ints(3, "axes")
    axes = list(range(rank)) if axes is None else [_axis(ctx, a, rank) for a in axes]
    if len(raw) != 2 * len(axes):
        ctx.fail(f"pads has {len(raw)} entries for {len(axes)} axes")
    pads = [0] * 2 * rank
    for i, d in enumerate(axes):
        pads[d], pads[rank + d] = raw[i], raw[len(axes) + i]
    mode = ctx.attr("mode", "constant")
    props: dict[str, Attribute] = {"pads": ints_attr(pads), "mode": StringAttr(mode)}
    value = ctx.const(2, "constant_value")
    if value is not None and mode == "constant" and value.size:
        props["value"] = scalar_attr(value.reshape(-1)[0].item(), ctx.type(0).element_type)
    return [ctx.value(tg.PadOp, [ctx.input(0)], props)]
