"""Converters for the operators that make or reshape whole tensors from shapes: Size,
ConstantOfShape, Range, EyeLike, Expand, Tile, Split, CenterCropPad, SpaceToDepth.

Tessel compiles static shapes, so the shape-like inputs (a ConstantOfShape's shape, an
Expand's shape, Tile's repeats, Split's sizes, Range's bounds) are compile-time constants:
initializers, or values the importer has folded from Shape/Gather/Concat subgraphs once
the graph inputs have fixed shapes. Most of these operators are then compositions of
reshape, expand, slice and pad, which tg-fuse puts back into one kernel.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import onnx_element_type, scalar_attr
from tessel.ir import dtypes


def axis_of(ctx: NodeContext, axis: int, rank: int) -> int:
    """A non-negative axis in [0, rank)."""
    if not -rank <= axis < rank:
        ctx.fail(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def shape_input(ctx: NodeContext, i: int, what: str) -> list[int]:
    """A static shape from input i; negative sizes are refused."""
    shape = ctx.const_ints(i, what)
    if shape is None:
        ctx.fail(f"input #{i} ({what}) is required")
    if any(d < 0 for d in shape):
        ctx.fail(f"{what} {shape} has a negative size")
    return shape


def expand(ctx: NodeContext, x: SSAValue, shape: list[int]) -> SSAValue:
    assert isinstance(x.type, TensorType)
    if tuple(shape) == x.type.get_shape():
        return x
    return ctx.value(tg.ExpandOp, [x], result_types=[TensorType(x.type.element_type, shape)])


def fill(ctx: NodeContext, value: float | int | bool, element_type, shape: list[int]) -> SSAValue:  # noqa: ANN001
    t = TensorType(element_type, shape)
    return ctx.value(tg.FillOp, [], {"value": scalar_attr(value, element_type)}, result_types=[t])


# --------------------------------------------------------------------------- shapes as values


@converter("Size")
def convert_size(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.constant(np.asarray(math.prod(ctx.shape(0)), np.int64), hint=ctx.node.output[0])]


@converter("ConstantOfShape", static=(0,))
def convert_constant_of_shape(ctx: NodeContext) -> list[SSAValue]:
    shape = shape_input(ctx, 0, "shape")
    value = ctx.attr("value")
    value = np.zeros(1, np.float32) if value is None else np.asarray(value)
    if value.size != 1:
        ctx.fail(f"value must hold one element, got shape {list(value.shape)}")
    try:
        element = dtypes.from_numpy(value.dtype)
    except TypeError:
        ctx.fail(f"value of element type {value.dtype} is not supported")
    return [fill(ctx, value.reshape(-1)[0].item(), element, shape)]


@converter("Range", static=(0, 1, 2))
def convert_range(ctx: NodeContext) -> list[SSAValue]:
    """Range's length depends on its inputs' values, so they are compile-time constants,
    and so is its result: numpy's arange, computed like ONNX's reference (in the stash
    type for f16/bf16 when one is given)."""
    start, limit, delta = (ctx.const(i, name) for i, name in enumerate(("start", "limit", "delta")))
    assert start is not None and limit is not None and delta is not None
    dtype = start.dtype
    if delta.item() == 0:
        ctx.fail("delta is zero")
    stash = ctx.attr("stash_type")
    if dtype.kind in "iu":
        values = np.arange(start.item(), limit.item(), delta.item(), dtype=dtype)
    elif stash is not None and dtype.itemsize == 2:
        compute = onnx_numpy_type(ctx, stash)
        values = np.arange(start.astype(compute).item(), float(limit.item()), float(delta.item()), dtype=compute)
    else:
        values = np.arange(start.item(), limit.item(), delta.item())
    return [ctx.constant(values.astype(dtype), hint=ctx.node.output[0])]


def onnx_numpy_type(ctx: NodeContext, code: int) -> np.dtype:
    return dtypes.to_numpy(onnx_element_type(ctx, code, "stash type"))


@converter("EyeLike")
def convert_eye_like(ctx: NodeContext) -> list[SSAValue]:
    """Ones on the k-th diagonal: the intersection of the two triangles of a fill."""
    shape = list(ctx.shape(0))
    if len(shape) != 2:
        ctx.fail(f"input must be 2-D, got shape {shape}")
    code = ctx.attr("dtype")
    element = ctx.type(0).element_type if code is None else onnx_element_type(ctx, code, "dtype")
    k = int(ctx.attr("k", 0))
    ones = fill(ctx, 1, element, shape)
    lower = ctx.value(tg.TriluOp, [ones], {"upper": bool_attr(False), "k": int_attr(k)})
    return [ctx.value(tg.TriluOp, [lower], {"upper": bool_attr(True), "k": int_attr(k)})]


# --------------------------------------------------------------------------- broadcasting


@converter("Expand", static=(1,))
def convert_expand(ctx: NodeContext) -> list[SSAValue]:
    """ONNX broadcasts both ways: the result shape is broadcast(input.shape, shape)."""
    shape = shape_input(ctx, 1, "shape")
    src = ctx.shape(0)
    rank = max(len(src), len(shape))
    a = [1] * (rank - len(src)) + list(src)
    b = [1] * (rank - len(shape)) + shape
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
        ctx.fail(f"shape {shape} does not broadcast with the input's {list(src)}")
    return [expand(ctx, ctx.input(0), [y if x == 1 else x for x, y in zip(a, b)])]


@converter("Tile", static=(1,))
def convert_tile(ctx: NodeContext) -> list[SSAValue]:
    """x tiled r times along each dim: (..., d, ...) viewed as (..., 1, d, ...), expanded to
    (..., r, d, ...) and flattened back to (..., r * d, ...)."""
    repeats = shape_input(ctx, 1, "repeats")
    src = list(ctx.shape(0))
    if len(repeats) != len(src):
        ctx.fail(f"repeats {repeats} must have one entry per dim of the input {src}")
    if all(r == 1 for r in repeats):
        return [ctx.input(0)]
    split, wide = [], []
    for d, r in zip(src, repeats):
        split += [1, d] if r != 1 else [d]
        wide += [r, d] if r != 1 else [d]
    x = ctx.reshape(ctx.input(0), split)
    return [ctx.reshape(expand(ctx, x, wide), [d * r for d, r in zip(src, repeats)])]


# --------------------------------------------------------------------------- pieces


def slice_of(ctx: NodeContext, x: SSAValue, starts: list[int], sizes: list[int]) -> SSAValue:
    """x[starts : starts + sizes] (unit steps); x itself when that is all of it."""
    assert isinstance(x.type, TensorType)
    if starts == [0] * len(starts) and tuple(sizes) == x.type.get_shape():
        return x
    props: dict[str, Attribute] = {"starts": ints_attr(starts), "steps": ints_attr([1] * len(starts))}
    return ctx.value(tg.SliceOp, [x], props, result_types=[TensorType(x.type.element_type, sizes)])


@converter("Split", static=(1,))
def convert_split(ctx: NodeContext) -> list[SSAValue]:
    """One slice per output: sizes from the `split` input (the attribute before opset 13),
    or equal chunks (the last one smaller under num_outputs, opset 18)."""
    src = list(ctx.shape(0))
    axis = axis_of(ctx, ctx.attr("axis", 0), len(src))
    n = src[axis]
    sizes = ctx.const_ints(1, "split") if ctx.has_input(1) else ctx.attr("split")
    count = ctx.num_outputs
    if sizes is None:
        parts = ctx.attr("num_outputs", count)
        if parts != count:
            ctx.fail(f"num_outputs={parts} but the node has {count} outputs")
        chunk = -(-n // parts) if parts else 0
        sizes = [min(chunk, max(n - i * chunk, 0)) for i in range(parts)]
    sizes = [int(s) for s in sizes]
    if len(sizes) != count or sum(sizes) != n or any(s < 0 for s in sizes):
        ctx.fail(f"split sizes {sizes} do not cut dim {axis} of size {n} into {count} outputs")
    outputs, start = [], 0
    for size in sizes:
        starts = [start if d == axis else 0 for d in range(len(src))]
        outputs.append(slice_of(ctx, ctx.input(0), starts, [size if d == axis else s for d, s in enumerate(src)]))
        start += size
    return outputs


@converter("CenterCropPad", static=(1,))
def convert_center_crop_pad(ctx: NodeContext) -> list[SSAValue]:
    """Crop the dims larger than asked around their centre, then zero-pad the smaller
    ones around it (the extra element of an odd difference goes to the end)."""
    src = list(ctx.shape(0))
    rank = len(src)
    shape = shape_input(ctx, 1, "shape")
    axes = [axis_of(ctx, a, rank) for a in ctx.attr("axes", list(range(rank)))]
    if len(shape) != len(axes):
        ctx.fail(f"shape {shape} must have one entry per axis {axes}")
    starts, sizes, pads = [0] * rank, list(src), [0] * (2 * rank)
    for a, want in zip(axes, shape):
        if want < src[a]:
            starts[a], sizes[a] = (src[a] - want) // 2, want
        elif want > src[a]:
            before = (want - src[a]) // 2
            pads[a], pads[rank + a] = before, want - src[a] - before
    x = slice_of(ctx, ctx.input(0), starts, sizes)
    if not any(pads):
        return [x]
    props: dict[str, Attribute] = {"pads": ints_attr(pads), "mode": StringAttr("constant")}
    return [ctx.value(tg.PadOp, [x], props)]


@converter("SpaceToDepth")
def convert_space_to_depth(ctx: NodeContext) -> list[SSAValue]:
    """b x b pixel blocks become channels: reshape to (N, C, H/b, b, W/b, b), transpose the
    block offsets before (DCR) or after (CRD) the channels, reshape to (N, C*b*b, H/b, W/b)."""
    src = list(ctx.shape(0))
    if len(src) != 4:
        ctx.fail(f"input must be 4-D (NCHW), got {src}")
    b = int(ctx.attr("blocksize"))
    mode = ctx.attr("mode", "DCR")
    if mode not in ("DCR", "CRD"):
        ctx.fail(f"mode must be DCR or CRD, got {mode!r}")
    n, c, h, w = src
    if b < 1 or h % b or w % b:
        ctx.fail(f"blocksize {b} must divide the height {h} and width {w}")
    x = ctx.reshape(ctx.input(0), [n, c, h // b, b, w // b, b])
    perm = [0, 3, 5, 1, 2, 4] if mode == "DCR" else [0, 1, 3, 5, 2, 4]
    t = ctx.value(tg.TransposeOp, [x], {"perm": ints_attr(perm)})
    return [ctx.reshape(t, [n, c * b * b, h // b, w // b])]
