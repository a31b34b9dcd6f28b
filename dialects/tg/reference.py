"""Numpy reference kernels: the meaning of every `tg` op, independent of xDSL.

Floating-point work is done in float64 and rounded once to the result type, so the
reference is at least as accurate as any compiled kernel it judges. Integer arithmetic
wraps modulo 2^n like the machine; integer division truncates toward zero.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def wide(x: np.ndarray) -> np.ndarray:
    """Float inputs widened to float64; integers unchanged."""
    return x.astype(np.float64) if x.dtype.kind == "f" or x.dtype.name == "bfloat16" else x


def wrap_int32(a: np.ndarray) -> np.ndarray:
    """Wider integers wrapped to int32, as an int32 datapath (an accumulator) leaves them."""
    return np.asarray(a).astype(np.int64).astype(np.int32)


def is_floating(x: np.ndarray) -> bool:
    return x.dtype.kind == "f" or x.dtype.name == "bfloat16"


# --------------------------------------------------------------------------- element-wise


def div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if is_floating(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            return wide(a) / wide(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.floor_divide(a, b)
        if a.dtype.kind == "i":
            r = np.remainder(a, b)
            q = q + ((r != 0) & ((a < 0) != (b < 0)))
    return np.where(b == 0, 0, q)


def int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer a^b, wrapping like the machine (square and multiply over b's bits); a
    negative b truncates 1/a^|b| toward zero: 1 for a = 1, ±1 for a = -1, else 0."""
    a, b = np.broadcast_arrays(a, b)
    result = np.ones(a.shape, a.dtype)
    base = a.copy()
    e = b.astype(np.int64) if b.dtype.kind == "i" else b.astype(np.uint64)
    negative = e < 0
    e = np.where(negative, 0, e)
    with np.errstate(over="ignore"):
        while np.any(e > 0):
            odd = (e & 1) == 1
            result = np.where(odd, result * base, result).astype(a.dtype)
            base = (base * base).astype(a.dtype)
            e = e >> 1
    if negative.any():
        odd_power = (b.astype(np.int64) & 1) == 1
        minus_one = np.where(odd_power, -1, 1).astype(a.dtype) if a.dtype.kind == "i" else result
        inverse = np.where(a == 1, 1, np.where(a == -1, minus_one, 0)).astype(a.dtype)
        result = np.where(negative, inverse, result)
    return result


def mod(a: np.ndarray, b: np.ndarray, fmod: bool) -> np.ndarray:
    """fmod: C's remainder (the sign of a); else numpy's mod (the sign of b). On integers
    a mod 0 is 0."""
    if is_floating(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.fmod(wide(a), wide(b)) if fmod else np.mod(wide(a), wide(b))
    safe = np.where(b == 0, 1, b).astype(b.dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = np.fmod(a, safe) if fmod else np.mod(a, safe)
    return np.where(b == 0, 0, r).astype(np.result_type(a, b))


def bitshift(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    """ONNX BitShift: amounts outside [0, width) give 0 (left, or right on unsigned) or
    the sign fill (right on signed); left shifts wrap."""
    a, b = np.broadcast_arrays(a, b)
    width = a.dtype.itemsize * 8
    valid = (b >= 0) & (b < width)
    amount = np.where(valid, b, 0).astype(np.uint64)
    bits = a.view(f"uint{width}").astype(np.uint64)
    if left:
        shifted = ((bits << amount) & np.uint64((1 << width) - 1)).astype(f"uint{width}").view(a.dtype)
        return np.where(valid, shifted, 0).astype(a.dtype)
    shifted = np.right_shift(a, amount.astype(a.dtype))
    fill = np.where(a < 0, -1, 0) if a.dtype.kind == "i" else 0
    return np.where(valid, shifted, fill).astype(a.dtype)


def gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    x = wide(x)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    from scipy import special  # (imported on first use: a third of a second)

    return 0.5 * x * (1.0 + special.erf(x / math.sqrt(2.0)))


def cast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """numpy's astype, with tg.cast's float -> integer rule made explicit: truncation, and a
    value out of range or NaN becomes x86's "integer indefinite" of a 32-bit conversion
    (wrapped) for the types up to 32 bits and of a 64-bit one for ui32 and i64. numpy's own
    astype does not promise that: its AVX2 loop turns NaN into 2147483648 for ui32 where its
    scalar loop gives 0 (the long fuzz profile found the reference disagreeing with itself).
    A 16-bit float goes through float32 (exact): ml_dtypes' bfloat16 casts an out-of-range
    value to 0."""
    dtype = np.dtype(dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        if x.dtype.kind in "fV" and dtype.kind in "iub":
            f = x.astype(np.float32) if x.dtype.itemsize == 2 else x
            if dtype.kind == "b":
                return f.astype(dtype)
            if dtype.itemsize < 4 or dtype == np.int32:
                return _indefinite(f, 32).astype(dtype)
            if dtype in (np.uint32, np.int64):
                return _indefinite(f, 64).astype(dtype)
            return f.astype(dtype)  # ui64: numpy's x86-64 conversion
        return x.astype(dtype)


def _indefinite(f: np.ndarray, bits: int) -> np.ndarray:
    """f truncated to a signed `bits`-bit integer (as int64), INT_MIN where out of range or NaN."""
    t = np.trunc(f.astype(np.float64))
    low = -(2.0 ** (bits - 1))
    bad = np.isnan(t) | (t < low) | (t >= 2.0 ** (bits - 1))
    return np.where(bad, low, t).astype(np.int64)


# --------------------------------------------------------------------------- contractions


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.matmul(wide(a), wide(b))


def gemm(
    a: np.ndarray, b: np.ndarray, c: np.ndarray | None, alpha: float, beta: float, trans_a: bool, trans_b: bool
) -> np.ndarray:
    a = a.T if trans_a else a
    b = b.T if trans_b else b
    exact_int = not is_floating(a) and alpha == 1.0 and beta == 1.0
    y = a @ b if exact_int else alpha * (wide(a).astype(np.float64) @ wide(b).astype(np.float64))
    if c is not None:
        y = y + (c if exact_int else beta * wide(c).astype(np.float64))
    return y


def conv_nd(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    groups: int,
) -> np.ndarray:
    """Any spatial rank: the dilated, strided windows of the padded input (a view) against
    each group's filters, one tensordot per group."""
    x, w = wide(x), wide(w)
    sp = x.ndim - 2
    n, c = x.shape[:2]
    m, cg, *kernel = w.shape
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + sp]) for i in range(sp)])
    extent = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
    view = sliding_window_view(xp, extent, axis=tuple(range(2, 2 + sp)))
    win = view[
        (slice(None), slice(None), *(slice(None, None, s) for s in strides), *(slice(None, None, d) for d in dilations))
    ]
    out = win.shape[2 : 2 + sp]
    win = win.reshape(n, groups, cg, *out, *kernel)
    wg = w.reshape(groups, m // groups, cg, *kernel)
    taps = [1 + 1 + sp + i for i in range(sp)]  # the kernel axes of win[:, g]
    parts = [
        np.moveaxis(np.tensordot(win[:, g], wg[g], axes=([1, *taps], [1, *range(2, 2 + sp)])), -1, 1)
        for g in range(groups)
    ]
    y = np.concatenate(parts, axis=1)
    return y if b is None else y + wide(b).reshape(1, m, *([1] * sp))


def conv_transpose_nd(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    output_padding: Sequence[int],
    groups: int,
) -> np.ndarray:
    """Any spatial rank: each kernel tap scatters the input, times the tap's weights, to
    the strided outputs it reaches; then the pads are cropped."""
    x, w = wide(x), wide(w)
    sp = x.ndim - 2
    n, c, *sizes = x.shape
    _, mg, *kernel = w.shape
    full = [(sizes[i] - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 + output_padding[i] for i in range(sp)]
    y = np.zeros((n, groups, mg, *full), dtype=x.dtype)
    xg = x.reshape(n, groups, c // groups, *sizes)
    wg = w.reshape(groups, c // groups, mg, *kernel)
    for tap in np.ndindex(*kernel):
        contrib = np.einsum("ngc...,gcm->ngm...", xg, wg[(slice(None), slice(None), slice(None), *tap)])
        reach = tuple(
            slice(tap[i] * dilations[i], tap[i] * dilations[i] + (sizes[i] - 1) * strides[i] + 1, strides[i])
            for i in range(sp)
        )
        y[(slice(None), slice(None), slice(None), *reach)] += contrib
    y = y.reshape(n, groups * mg, *full)
    crop = tuple(slice(pads[i], full[i] - pads[i + sp]) for i in range(sp))
    y = y[(slice(None), slice(None), *crop)]
    return y if b is None else y + wide(b).reshape(1, -1, *([1] * sp))


# the 2-D convolutions are the N-d ones at spatial rank 2
conv2d = conv_nd
conv_transpose2d = conv_transpose_nd


def depth_to_space(x: np.ndarray, b: int, mode: str) -> np.ndarray:
    """ONNX DepthToSpace on NCHW; an NCHW[k]c input is unblocked first and reblocked after."""
    if x.ndim == 5:
        k = x.shape[4]
        y = depth_to_space(to_layout(x, f"NCHW{k}c", "NCHW"), b, mode)
        return to_layout(y, "NCHW", f"NCHW{k}c")
    n, c, h, w = x.shape
    if mode == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


def to_layout(x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """NCHW <-> NCHW[c]c and OIHW -> OIHW[i]i[o]o (the names say the order of the dims)."""
    if src == "NCHW" and dst.endswith("c"):
        n, ch, h, w = x.shape
        c = int(dst[4:-1])
        return x.reshape(n, ch // c, c, h, w).transpose(0, 1, 3, 4, 2)
    if dst == "NCHW":
        n, cb, h, w, c = x.shape
        return x.transpose(0, 1, 4, 2, 3).reshape(n, cb * c, h, w)
    bi, bo = (int(v) for v in dst[4:-1].split("i"))
    o, i, kh, kw = x.shape
    return x.reshape(o // bo, bo, i // bi, bi, kh, kw).transpose(0, 2, 4, 5, 3, 1)


def conv2d_nchwc(x, w, b, strides, pads, dilations, groups: int = 1) -> np.ndarray:
    """Through the NCHW convolution: unblock, convolve, block again."""
    n, cb_count, h, wd, cb = x.shape
    mo, co, kh, kw, _, mb = w.shape
    x4 = x.transpose(0, 1, 4, 2, 3).reshape(n, cb_count * cb, h, wd)
    w4 = w.transpose(0, 5, 1, 4, 2, 3).reshape(mo * mb, co * cb, kh, kw)
    y = conv2d(x4, w4, b, strides, pads, dilations, groups)
    _, _, oh, ow = y.shape
    return y.reshape(n, mo, mb, oh, ow).transpose(0, 1, 3, 4, 2)


def depthwise_conv2d_nchwc(x, w, b, strides, pads, dilations) -> np.ndarray:
    """Through the grouped NCHW convolution: unblock, convolve, block again."""
    n, blocks, h, wd, cb = x.shape
    _, _, kh, kw, _, _ = w.shape
    x4 = x.transpose(0, 1, 4, 2, 3).reshape(n, blocks * cb, h, wd)
    w4 = w.transpose(0, 5, 1, 2, 3, 4).reshape(blocks * cb, 1, kh, kw)
    y = conv2d(x4, w4, b, strides, pads, dilations, blocks * cb)
    _, _, oh, ow = y.shape
    return y.reshape(n, blocks, cb, oh, ow).transpose(0, 1, 3, 4, 2)


def dense_packed(a: np.ndarray, w: np.ndarray, columns: int) -> np.ndarray:
    """Unpack w [N/nb, K, nb] to B [K, N] and multiply."""
    blocks, k, nb = w.shape
    return np.matmul(a, w.transpose(1, 0, 2).reshape(k, blocks * nb)[:, :columns])


def bf16_round(x: np.ndarray) -> np.ndarray:
    """float32 rounded to the nearest bfloat16 (ties to even), as float32; NaN stays NaN."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return np.where(np.isnan(x), x, rounded.view(np.float32)).astype(np.float32)


def bf16_unpack(w: np.ndarray) -> np.ndarray:
    """Packed bfloat16 pairs w [N/16, P, 16] (i32: high half row 2p + 1, low half row 2p) as
    the float32 matrix B [2P, N]."""
    blocks, pairs, nb = w.shape
    return bf16_unpack_along(w, 1).transpose(1, 0, 2).reshape(2 * pairs, blocks * nb)


def bf16_unpack_along(w: np.ndarray, axis: int) -> np.ndarray:
    """int32 words of bfloat16 pairs as float32, the pairs' axis twice as long (low half
    first)."""
    u = np.ascontiguousarray(w).view(np.uint32)
    low = (u << np.uint32(16)).view(np.float32)
    high = (u & np.uint32(0xFFFF0000)).view(np.float32)
    both = np.stack([low, high], axis=axis + 1)
    shape = list(w.shape)
    shape[axis] *= 2
    return both.reshape(shape)


def conv2d_nchwc_bf16(x, w, b, strides, pads, dilations) -> np.ndarray:
    """bf16(x) convolved with the unpacked pairs, summed in float32 (tg.conv2d_nchwc_bf16)."""
    y = conv2d_nchwc(bf16_round(x), bf16_unpack_along(w, 4), b, strides, pads, dilations)
    return np.asarray(y, np.float32)


def dense_packed_bf16(a: np.ndarray, w: np.ndarray, columns: int) -> np.ndarray:
    """bf16(a) times the unpacked pairs, summed in float32 (tg.dense_packed_bf16)."""
    b = bf16_unpack(w)
    k = a.shape[-1]
    return np.matmul(bf16_round(a), b[:k, :columns]).astype(np.float32)


def conv2d_winograd(x, u, bt, at, b, pads) -> np.ndarray:
    """tg.conv2d_winograd: input tiles transformed by bt, multiplied per tile point with u
    over the input channels, transformed back by at (float64, rounded once)."""
    n, co, h, wd, cb = x.shape
    tiles, mo, _, _, mb = u.shape
    m, a = at.shape
    r = a - m + 1
    oh, ow = h + pads[0] + pads[2] - r + 1, wd + pads[1] + pads[3] - r + 1
    th, tw = -(-oh // m), -(-ow // m)
    xp = np.zeros((n, co, th * m + r - 1, tw * m + r - 1, cb))
    rows, cols = min(h, xp.shape[2] - pads[0]), min(wd, xp.shape[3] - pads[1])
    xp[:, :, pads[0] : pads[0] + rows, pads[1] : pads[1] + cols] = wide(x)[:, :, :rows, :cols]
    # d[n, co, ty, tx, p, q, ci]: the a x a patch of every tile
    d = sliding_window_view(xp, (a, a), axis=(2, 3))[:, :, ::m, ::m].transpose(0, 1, 2, 3, 5, 6, 4)
    bt64, at64 = wide(bt), wide(at)
    v = np.einsum("ip,jq,nctxpqk->nijtxck", bt64, bt64, d)
    u64 = wide(u).reshape(a, a, mo, co * cb, mb)
    mm = np.einsum("nijtxc,ijocl->nijtxol", v.reshape(*v.shape[:5], co * cb), u64)
    y = np.einsum("si,tj,nijyxol->noysxtl", at64, at64, mm).reshape(n, mo, th * m, tw * m, mb)[:, :, :oh, :ow]
    if b is not None:
        y = y + wide(b).reshape(1, mo, 1, 1, mb)
    return y.astype(x.dtype)


# --------------------------------------------------------------------------- pooling


def _window_positions(size: int, out: int, kernel: int, stride: int, pad: int, dilation: int) -> np.ndarray:
    """positions[o, j] = o*stride - pad + j*dilation: the input index each window tap reads."""
    return np.arange(out)[:, None] * stride - pad + np.arange(kernel)[None, :] * dilation


def _gather_taps(x: np.ndarray, positions: list[np.ndarray], fill: float | int) -> tuple[np.ndarray, np.ndarray]:
    """Every tap of every window: (N, C, *out, *kernel) values (fill where out of bounds)
    and the matching in-bounds mask (broadcastable)."""
    sp = len(positions)
    shape = x.shape[2:]
    lo = [max(0, -int(p.min())) for p in positions]
    hi = [max(0, int(p.max()) - (n - 1)) for p, n in zip(positions, shape)]
    xp = np.pad(x, ((0, 0), (0, 0), *zip(lo, hi)), constant_values=fill)
    index: list[np.ndarray] = []
    masks = []
    for d, p in enumerate(positions):
        # put (out_d, k_d) on their axes among (*out, *kernel)
        view = [1] * (2 * sp)
        view[d], view[sp + d] = p.shape
        index.append((p + lo[d]).reshape(view))
        masks.append(((p >= 0) & (p < shape[d])).reshape(view))
    key: tuple[slice | np.ndarray, ...] = (slice(None), slice(None), *index)
    taps = xp[key]
    mask = np.logical_and.reduce(np.broadcast_arrays(*masks)) if masks else np.ones((), bool)
    return taps, mask


def max_pool(
    x: np.ndarray,
    out_shape: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    storage_order: int,
) -> tuple[np.ndarray, np.ndarray]:
    sp = len(kernel)
    positions = [
        _window_positions(x.shape[2 + d], out_shape[d], kernel[d], strides[d], pads[d], dilations[d]) for d in range(sp)
    ]
    fill = lowest(x.dtype)
    taps, mask = _gather_taps(x, positions, fill)
    n, c = x.shape[:2]
    flat_taps = np.where(mask, taps, fill).reshape(n, c, *out_shape, -1)
    flat_mask = np.broadcast_to(mask, (*out_shape, *kernel)).reshape(*out_shape, -1)
    values = flat_taps.max(axis=-1)  # NaN propagates; a window with no input is `fill`
    # the first maximal in-bounds tap in row-major window order (ONNX's Indices); -1 if none
    first = np.argmax((flat_taps == values[..., None]) & flat_mask, axis=-1)
    tap = np.unravel_index(first, kernel)  # per spatial dim: window offset index
    spatial = x.shape[2:]
    clipped = []
    for d in range(sp):
        o = np.arange(out_shape[d]).reshape([-1 if e == d else 1 for e in range(sp)])
        clipped.append(np.clip(o * strides[d] - pads[d] + tap[d] * dilations[d], 0, spatial[d] - 1))
    coords = np.broadcast_arrays(*clipped, np.zeros((n, c, *out_shape), dtype=np.int64))[:sp]
    if storage_order == 1 and sp == 2:
        inner = coords[0] + coords[1] * spatial[0]
    else:
        inner = np.ravel_multi_index(tuple(coords), spatial)
    base = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * math.prod(spatial)
    indices = base.reshape(n, c, *([1] * sp)) + inner
    return values, np.where(flat_mask.any(axis=-1), indices, -1).astype(np.int64)


def avg_pool(
    x: np.ndarray,
    out_shape: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    count_include_pad: bool,
) -> np.ndarray:
    sp = len(kernel)
    x = wide(x)
    positions = [
        _window_positions(x.shape[2 + d], out_shape[d], kernel[d], strides[d], pads[d], dilations[d]) for d in range(sp)
    ]
    taps, mask = _gather_taps(x, positions, 0.0)
    kernel_axes = tuple(range(2 + sp, 2 + 2 * sp))
    total = np.where(mask, taps, 0.0).sum(axis=kernel_axes)
    count = np.ones(tuple(out_shape))
    for d, p in enumerate(positions):
        lo, hi = (-pads[d], x.shape[2 + d] + pads[sp + d]) if count_include_pad else (0, x.shape[2 + d])
        per_dim = ((p >= lo) & (p < hi)).sum(axis=1)
        count = count * per_dim.reshape([-1 if e == d else 1 for e in range(sp)])
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / count  # a window with no counted position is NaN, as ONNX's reference


def lp_pool(
    x: np.ndarray,
    out_shape: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    p: int,
) -> np.ndarray:
    """(sum of |x|^p over the in-bounds taps)^(1/p); out-of-bounds taps add zero."""
    sp = len(kernel)
    x = wide(x)
    positions = [
        _window_positions(x.shape[2 + d], out_shape[d], kernel[d], strides[d], pads[d], dilations[d]) for d in range(sp)
    ]
    taps, mask = _gather_taps(np.abs(x) ** p, positions, 0.0)
    total = np.where(mask, taps, 0.0).sum(axis=tuple(range(2 + sp, 2 + 2 * sp)))
    return total ** (1.0 / p)


# --------------------------------------------------------------------------- normalization


def batch_norm(x, scale, bias, mean, var, epsilon: float) -> np.ndarray:
    shape = (1, -1) + (1,) * (x.ndim - 2)
    x = wide(x)
    inv = 1.0 / np.sqrt(wide(var).reshape(shape) + epsilon)
    return (x - wide(mean).reshape(shape)) * inv * wide(scale).reshape(shape) + wide(bias).reshape(shape)


def layer_norm(x, scale, bias, axis: int, epsilon: float) -> np.ndarray:
    x = wide(x)
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + epsilon) * wide(scale)
    return y + wide(bias) if bias is not None else y


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """With 16-bit floats every step computes in the element type, as ONNX's reference
    does (x - max, exp, the sum: float32-accumulated for f16, a running bf16 sum for
    bf16, and the quotient each round); wider floats compute in float64."""
    if is_floating(x) and x.dtype.itemsize == 2:
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
    x = wide(x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    x = wide(x)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


# --------------------------------------------------------------------------- data movement


def slice_(x: np.ndarray, starts: Sequence[int], steps: Sequence[int], out_shape: Sequence[int]) -> np.ndarray:
    for d, (start, step, extent) in enumerate(zip(starts, steps, out_shape)):
        x = np.take(x, start + step * np.arange(extent, dtype=np.int64), axis=d)
    return x


_PAD_MODES: dict[str, Literal["reflect", "edge", "wrap"]] = {"reflect": "reflect", "edge": "edge", "wrap": "wrap"}


def pad(x: np.ndarray, pads: Sequence[int], mode: str, value: float | int | bool) -> np.ndarray:
    """Positive amounts pad, negative ones crop (after padding the other side)."""
    rank = x.ndim
    grow = [(max(pads[d], 0), max(pads[d + rank], 0)) for d in range(rank)]
    if mode == "constant":
        y = np.pad(x, grow, mode="constant", constant_values=value)
    else:
        y = np.pad(x, grow, mode=_PAD_MODES[mode])
    crop = tuple(slice(max(-pads[d], 0), y.shape[d] - max(-pads[d + rank], 0)) for d in range(rank))
    return y[crop]


# --------------------------------------------------------------------------- reductions


def lowest(dtype: np.dtype) -> float | int | bool:
    """The identity of max: -inf, the smallest integer, or False."""
    if dtype == np.bool_:
        return False
    return -np.inf if dtype.kind == "f" or dtype.name == "bfloat16" else np.iinfo(dtype).min


def shift_right(x: np.ndarray, amount: int) -> np.ndarray:
    """Arithmetic shift: floor(x / 2^amount) for signed integers, like LLVM's ashr."""
    return np.right_shift(x, np.asarray(amount, dtype=x.dtype))


def _expit(x: np.ndarray) -> np.ndarray:
    from scipy import special  # (imported on first use: a third of a second)

    return special.expit(x)


UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tg.neg": np.negative,
    "tg.exp": np.exp,
    "tg.sqrt": np.sqrt,
    "tg.relu": lambda x: np.maximum(x, 0),
    "tg.sigmoid": _expit,
    "tg.tanh": np.tanh,
}

BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "tg.add": np.add,
    "tg.sub": np.subtract,
    "tg.mul": np.multiply,
    "tg.div": div,
}
