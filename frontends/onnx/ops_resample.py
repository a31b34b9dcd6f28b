"""Converters for resampling: Resize (and Upsample, which ONNX's version converter turns
into Resize), GridSample, AffineGrid and Col2Im.

Resize is separable and its taps are static (frontends/onnx/resize_taps.py), so each
resized axis becomes a few gathers with constant indices times constant weights; nearest
resizing by a whole factor is a broadcast (each input repeated k times) and by a whole
fraction a strided slice, both plain index maps the CPU code vectorizes. Floats narrower
than f32 are interpolated in f32 and rounded once; f64 in f64; integers only by nearest
(ONNX's reference rounds integer linear/cubic results half to even).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType, f32
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import cast
from tessel.frontends.onnx.ops_shape import axis_of, expand
from tessel.frontends.onnx.resize_taps import AxisTaps, Settings, axis_taps, is_identity, plan
from tessel.ir import dtypes

COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _choice(ctx: NodeContext, name: str, default: str, allowed: tuple[str, ...]) -> str:
    value = ctx.attr(name, default)
    if value not in allowed:
        ctx.fail(f"attribute {name}={value!r} is not one of {', '.join(allowed)}")
    return value


def _settings(ctx: NodeContext) -> Settings:
    mode = _choice(ctx, "mode", "nearest", ("nearest", "linear", "cubic"))
    antialias = bool(ctx.attr("antialias", 0))
    if antialias and mode == "nearest":
        ctx.fail("antialias=1 needs mode linear or cubic")
    return Settings(
        mode=mode,
        coordinate_mode=_choice(ctx, "coordinate_transformation_mode", "half_pixel", COORDINATE_MODES),
        nearest_mode=_choice(ctx, "nearest_mode", "round_prefer_floor", NEAREST_MODES),
        cubic_a=float(ctx.attr("cubic_coeff_a", -0.75)),
        antialias=antialias,
        exclude_outside=bool(ctx.attr("exclude_outside", 0)),
    )


@converter("Resize", static=(1, 2, 3))
def convert_resize(ctx: NodeContext) -> list[SSAValue]:
    shape = list(ctx.shape(0))
    rank = len(shape)
    s = _settings(ctx)
    et = ctx.type(0).element_type
    if s.mode != "nearest" and not dtypes.is_float(et):
        ctx.fail(f"mode {s.mode} on {et} is not supported (integer tensors resize by nearest only)")
    roi = ctx.const(1, "roi")
    scales = ctx.const(2, "scales")
    sizes = ctx.const_ints(3, "sizes")
    if scales is not None and scales.size == 0:
        scales = None
    if (scales is None) == (sizes is None):
        ctx.fail("exactly one of scales and sizes must be given")
    raw_axes = ctx.attr("axes")
    axes = [axis_of(ctx, a, rank) for a in raw_axes] if raw_axes is not None else None
    count = len(axes) if axes is not None else rank
    given = sizes if sizes is not None else list(scales.reshape(-1))  # type: ignore[union-attr]
    if len(given) != count:
        ctx.fail(f"{'sizes' if sizes is not None else 'scales'} has {len(given)} entries for {count} axes")
    if scales is not None and any(v <= 0 for v in given):
        ctx.fail(f"scales {list(given)} must be positive")
    policy = _choice(ctx, "keep_aspect_ratio_policy", "stretch", ("stretch", "not_larger", "not_smaller"))
    roi_values = None if roi is None else [float(v) for v in roi.reshape(-1)]
    p = plan(shape, axes, None if scales is None else [float(v) for v in given], sizes, roi_values, policy)
    extrapolation = float(ctx.attr("extrapolation_value", 0.0))
    x = ctx.input(0)
    narrow = dtypes.is_float(et) and dtypes.to_numpy(et).itemsize < 4
    if narrow and s.mode != "nearest":
        x = cast(ctx, x, f32)
    for axis in p.axes:
        if is_identity(p, shape, axis):
            continue
        taps = axis_taps(s, shape[axis], p.sizes[axis], p.scales[axis], p.rois[axis])
        x = _resample_axis(ctx, x, axis, taps, extrapolation)
    if narrow and s.mode != "nearest":
        x = cast(ctx, x, et)
    return [x]


def _along(values: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A per-position table of one axis, shaped to broadcast along it."""
    return values.reshape((-1,) + (1,) * (rank - 1 - axis))


def _resample_axis(ctx: NodeContext, x: SSAValue, axis: int, taps: AxisTaps, extrapolation: float) -> SSAValue:
    """sum over t of x gathered at taps.indices[:, t] along `axis` times taps.weights[:, t]
    (plus the extrapolation value where the output lies outside the input)."""
    assert isinstance(x.type, TensorType)
    shape = list(x.type.get_shape())
    rank = len(shape)
    et = x.type.element_type
    n_in, n_out = shape[axis], taps.indices.shape[0]
    dt = dtypes.to_numpy(et)
    result: SSAValue | None = None
    for t in range(taps.indices.shape[1]):
        picked = _pick(ctx, x, axis, taps.indices[:, t], n_in)
        weights = taps.weights[:, t]
        if not np.all(weights == 1.0):
            w = ctx.constant(_along(weights.astype(dt), axis, rank), hint=f"{ctx.node.name or 'resize'}_w{axis}_{t}")
            picked = ctx.value(tg.MulOp, [picked, w])
        result = picked if result is None else ctx.value(tg.AddOp, [result, picked])
    assert result is not None
    if taps.extrapolated is not None:
        fill = np.where(taps.extrapolated, extrapolation, 0.0).astype(dt)
        result = ctx.value(tg.AddOp, [result, ctx.constant(_along(fill, axis, rank))])
    assert isinstance(result.type, TensorType) and result.type.get_shape()[axis] == n_out
    return result


def _pick(ctx: NodeContext, x: SSAValue, axis: int, index: np.ndarray, n: int) -> SSAValue:
    """x at positions `index` along `axis`: a broadcast when each input position repeats
    k times in order, a strided slice for every k-th position, a gather otherwise."""
    assert isinstance(x.type, TensorType)
    shape = list(x.type.get_shape())
    m = len(index)
    if m % n == 0 and np.array_equal(index, np.repeat(np.arange(n), m // n)):
        k = m // n
        if k == 1:
            return x
        split = [*shape[: axis + 1], 1, *shape[axis + 1 :]]
        wide = [*shape[: axis + 1], k, *shape[axis + 1 :]]
        return ctx.reshape(expand(ctx, ctx.reshape(x, split), wide), [*shape[:axis], m, *shape[axis + 1 :]])
    step = int(index[1] - index[0]) if m > 1 else 1
    if step > 0 and np.array_equal(index, index[0] + step * np.arange(m)) and index[-1] < n:
        starts = [int(index[0]) if d == axis else 0 for d in range(len(shape))]
        steps = [step if d == axis else 1 for d in range(len(shape))]
        out = TensorType(x.type.element_type, [m if d == axis else s for d, s in enumerate(shape)])
        props: dict[str, Attribute] = {"starts": ints_attr(starts), "steps": ints_attr(steps)}
        return ctx.value(tg.SliceOp, [x], props, result_types=[out])
    indices = ctx.constant(index.astype(np.int64), hint=f"{ctx.node.name or 'resize'}_i{axis}")
    return ctx.value(tg.GatherOp, [x, indices], {"axis": int_attr(axis)})


# --------------------------------------------------------------------------- grids


@converter("GridSample")
def convert_grid_sample(ctx: NodeContext) -> list[SSAValue]:
    """Opset 16 spells the modes bilinear and bicubic, 20 linear and cubic."""
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(ctx.attr("mode", "linear"), ctx.attr("mode", "linear"))
    if mode not in ("nearest", "linear", "cubic"):
        ctx.fail(f"mode {mode!r} is not one of nearest, linear (bilinear), cubic (bicubic)")
    padding = _choice(ctx, "padding_mode", "zeros", ("zeros", "border", "reflection"))
    et = ctx.type(0).element_type
    if not dtypes.is_float(et):
        ctx.fail(f"sampling a {et} input is not supported (float inputs only)")
    grid = ctx.input(1)
    if ctx.type(1).element_type != et:
        grid = cast(ctx, grid, et)
    props: dict[str, Attribute] = {
        "mode": StringAttr(mode),
        "padding_mode": StringAttr(padding),
        "align_corners": bool_attr(ctx.attr("align_corners", 0)),
    }
    return [ctx.value(tg.GridSampleOp, [ctx.input(0), grid], props)]


def base_grid(spatial: list[int], align_corners: bool) -> np.ndarray:
    """(prod(spatial), r + 1): the normalized coordinates of every output position, last
    dim first ((x, y, 1) for an image), as ONNX's reference lays them out."""
    axes = []
    for size in spatial:
        if align_corners:
            axes.append(np.arange(-1, 1 + 0.0001, 2.0 / (size - 1)) if size > 1 else np.array([-1.0]))
        else:
            step = 2.0 / size
            axes.append(np.arange(-1 + step / 2, 1, step))
    mesh = np.meshgrid(*axes, indexing="ij")
    columns = [m.reshape(-1) for m in reversed(mesh)] + [np.ones(int(np.prod(spatial)))]
    return np.stack(columns, axis=1)


@converter("AffineGrid", static=(1,))
def convert_affine_grid(ctx: NodeContext) -> list[SSAValue]:
    """grid[n, p] = theta[n] @ (x_p, y_p, (z_p,) 1): one batched matmul of the constant
    base grid by theta transposed."""
    size = ctx.const_ints(1, "size")
    assert size is not None
    theta = ctx.shape(0)
    r = len(size) - 2
    if r not in (2, 3) or theta != (size[0], r, r + 1):
        ctx.fail(f"theta {list(theta)} and size {size} must be (N, 2, 3) and 4 values, or (N, 3, 4) and 5")
    et = ctx.type(0).element_type
    base = base_grid(size[2:], bool(ctx.attr("align_corners", 0))).astype(dtypes.to_numpy(et))
    points = ctx.constant(base, hint=f"{ctx.node.name or 'affine_grid'}_base")
    rotated = ctx.value(tg.TransposeOp, [ctx.input(0)], {"perm": ints_attr([0, 2, 1])})
    flat = ctx.value(tg.MatmulOp, [points, rotated])
    return [ctx.reshape(flat, [size[0], *size[2:], r])]


@converter("Col2Im", static=(1, 2))
def convert_col2im(ctx: NodeContext) -> list[SSAValue]:
    image = ctx.const_ints(1, "image_shape")
    block = ctx.const_ints(2, "block_shape")
    assert image is not None and block is not None
    r = len(image)
    props: dict[str, Attribute] = {
        "image_shape": ints_attr(image),
        "block_shape": ints_attr(block),
        "dilations": ints_attr(ctx.attr("dilations", [1] * r)),
        "pads": ints_attr(ctx.attr("pads", [0] * 2 * r)),
        "strides": ints_attr(ctx.attr("strides", [1] * r)),
    }
    return [ctx.value(tg.Col2ImOp, [ctx.input(0)], props)]
