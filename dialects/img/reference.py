"""The meaning of an `img` pipeline in numpy: every compiled pipeline is checked against it.

A frame is an (H, W, C) array of its element type; a stream is a list of frames. Per-frame
ops apply to each frame of a stream. Rounding and borders are fixed here:

* stencil borders: `clamp` repeats the edge pixel, `zero` reads 0, `mirror` reflects
  without repeating the edge (OpenCV's BORDER_REFLECT_101);
* `downsample` `average` rounds half up on integers ((sum + n/2) / n), `nearest` keeps the
  top-left pixel of each block; `rounding floor` drops a partial last block, `rounding ceil`
  keeps it and reads its missing pixels through the border (the frame padded first);
* `lut` reads table[min(index, entries - 1)];
* sums (`reduce`, `scan`, `dense`) wrap in int32 like the hardware they stand for;
* `transmit` and `encode` are the identity on values: they exist for the cost model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tessel.dialects.tg.reference import wrap_int32
from tessel.ir.diagnostics import TesselError, op_location

from . import ops as img
from .attrs import Border, ReduceKind
from .scalar import evaluate
from .types import ImageType, numpy_dtype

Value = np.ndarray | list


def _per_frame(fn):  # noqa: ANN001, ANN202
    def lifted(x: Value, *rest):  # noqa: ANN002, ANN202
        return [fn(f, *rest) for f in x] if isinstance(x, list) else fn(x, *rest)

    return lifted


def _signless(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype("u" + a.dtype.name)) if a.dtype.kind == "i" else a


def _typed(a: np.ndarray, t: ImageType) -> np.ndarray:
    dt = np.dtype(numpy_dtype(t.element))
    return a.astype(dt) if dt.kind == "f" else a.astype(np.dtype("u" + dt.name.lstrip("u"))).view(dt)


def pad_frame(x: np.ndarray, top: int, bottom: int, left: int, right: int, border: Border) -> np.ndarray:
    mode = {Border.CLAMP: "edge", Border.ZERO: "constant", Border.MIRROR: "reflect"}[border]
    return np.pad(x, ((top, bottom), (left, right), (0, 0)), mode=mode)  # type: ignore[call-overload]


def stencil(op: img.StencilOp, x: np.ndarray) -> np.ndarray:
    kh, kw = op.size
    h, w, _ = x.shape
    top, left = (kh - 1) // 2, (kw - 1) // 2
    p = pad_frame(_signless(x), top, kh - 1 - top, left, kw - 1 - left, op.border_mode)
    windows = [p[dy : dy + h, dx : dx + w] for dy in range(kh) for dx in range(kw)]
    return _typed(evaluate(op.body.block, windows), op.result.type)


def downsample(op: img.DownsampleOp, x: np.ndarray) -> np.ndarray:
    fy, fx = op.factors
    out = op.result.type
    assert isinstance(out, ImageType)
    oh, ow = out.height.data, out.width.data
    if not op.average:
        return x[: oh * fy : fy, : ow * fx : fx].copy()
    h, w, _ = x.shape
    x = x[: oh * fy, : ow * fx]  # floor: the partial block dropped
    if oh * fy > h or ow * fx > w:  # ceil: the partial block read through the border
        x = pad_frame(x, 0, oh * fy - h, 0, ow * fx - w, op.border_mode)
    return _block_mean(x, fy, fx)


def _block_mean(x: np.ndarray, fy: int, fx: int) -> np.ndarray:
    h, w, c = x.shape
    blocks = x.reshape(h // fy, fy, w // fx, fx, c)
    if x.dtype.kind == "f":
        return blocks.mean(axis=(1, 3), dtype=np.float64).astype(x.dtype)
    n = fy * fx
    return ((blocks.astype(np.int64).sum(axis=(1, 3)) + n // 2) // n).astype(x.dtype)


def _reduce(x: np.ndarray, kind: ReduceKind) -> np.ndarray:
    if kind == ReduceKind.SUM:
        if x.dtype.kind == "f":
            return x.sum(axis=(0, 1), dtype=np.float64).astype(np.float32).reshape(1, 1, -1)
        return wrap_int32(x.astype(np.int64).sum(axis=(0, 1))).reshape(1, 1, -1)
    return (x.min if kind == ReduceKind.MIN else x.max)(axis=(0, 1)).reshape(1, 1, -1)


def table_lookup(op: img.LutOp, x: np.ndarray) -> np.ndarray:
    out = op.result.type
    assert isinstance(out, ImageType)
    table = np.asarray(op.values(), dtype=np.float64 if out.element_name == "f32" else np.int64)
    return _typed(table[np.minimum(x.astype(np.int64), op.entries - 1)], out)


def _scan(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "f":
        return x.astype(np.float64).cumsum(0).cumsum(1).astype(np.float32)
    return wrap_int32(x.astype(np.int64).cumsum(0).cumsum(1))


def _dense(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1).astype(np.int64)
    return wrap_int32(flat @ w[..., 0].astype(np.int64)).reshape(1, 1, -1)


def _remap(x: np.ndarray, lut: np.ndarray) -> np.ndarray:
    h, w, _ = x.shape
    ys = np.clip(lut[..., 0].astype(np.int64), 0, h - 1)
    xs = np.clip(lut[..., 1].astype(np.int64), 0, w - 1)
    return x[ys, xs]


def run(fn: func.FuncOp, inputs: Sequence[Value], sources: Mapping[str, list[np.ndarray]] | None = None,
        sinks: list[Value] | None = None) -> list[Value]:  # fmt: skip
    """The function's results for numpy inputs; `sources` gives each img.source's frames by
    its `camera` name (or by its result's name when it has none); what reaches each img.sink
    is appended to `sinks` when given."""
    env: dict[SSAValue, Value] = dict(zip(fn.body.block.args, inputs))
    sources = dict(sources or {})
    for op in fn.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return [env[v] for v in op.operands]
        args = [env[v] for v in op.operands]
        if isinstance(op, img.SinkOp) and sinks is not None:
            sinks.append(args[0])
        result = _op(op, args, sources)
        if op.results and result is not None:
            env[op.results[0]] = result
    raise TesselError(f"@{fn.sym_name.data} has no func.return")


def _op(op: Operation, args: list[Value], sources: dict[str, list[np.ndarray]]) -> Value | None:
    if isinstance(op, img.MapOp | img.MergeOp):

        def fn(frames: list[np.ndarray]) -> np.ndarray:
            return _map(op, frames) if isinstance(op, img.MapOp) else np.concatenate(frames, axis=2)

        streams = [a for a in args if isinstance(a, list)]
        if streams:  # frames (constants) go with every frame of the streams
            n = min(len(a) for a in streams)
            return [fn([a[i] if isinstance(a, list) else a for a in args]) for i in range(n)]
        return fn([a for a in args if not isinstance(a, list)])
    if isinstance(op, img.ExtractOp):
        c = op.channel.value.data
        return _per_frame(lambda x: x[..., c : c + 1].copy())(args[0])
    if isinstance(op, img.StencilOp):
        return _per_frame(lambda x: stencil(op, x))(args[0])
    if isinstance(op, img.ReduceOp):
        return _per_frame(lambda x: _reduce(x, op.kind.data))(args[0])
    if isinstance(op, img.ScanOp):
        return _per_frame(_scan)(args[0])
    if isinstance(op, img.LutOp):
        return _per_frame(lambda x: table_lookup(op, x))(args[0])
    if isinstance(op, img.DownsampleOp):
        return _per_frame(lambda x: downsample(op, x))(args[0])
    if isinstance(op, img.UpsampleOp):
        fy, fx = op.factors
        return _per_frame(lambda x: np.repeat(np.repeat(x, fy, axis=0), fx, axis=1))(args[0])
    if isinstance(op, img.CropOp):
        y, x0, h, w = op.box
        return _per_frame(lambda x: x[y : y + h, x0 : x0 + w].copy())(args[0])
    if isinstance(op, img.RemapOp):
        if isinstance(args[0], list):
            lut = args[1]
            return [_remap(f, lut[i] if isinstance(lut, list) else lut) for i, f in enumerate(args[0])]
        frame, table = args
        if isinstance(frame, list) or isinstance(table, list):
            raise TesselError("img.remap of frames takes a frame table", op_location(op))
        return _remap(frame, table)
    if isinstance(op, img.GateOp):
        frames, preds = args
        if not isinstance(frames, list) or not isinstance(preds, list):
            raise TesselError("img.gate needs streams (lists of frames)", op_location(op))
        return [f for f, p in zip(frames, preds) if p.reshape(-1)[0] != 0]
    if isinstance(op, img.DenseOp):
        weights = args[1]
        if isinstance(weights, list):
            raise TesselError("img.dense takes its weights as a frame, not a stream", op_location(op))
        return _per_frame(lambda x: _dense(x, weights))(args[0])
    if isinstance(op, img.TransmitOp | img.EncodeOp):
        return args[0]
    if isinstance(op, img.SourceOp):
        name = op.source_name
        if name not in sources:
            raise TesselError(f"img.source '{name}' has no frames (give them by camera name)", op_location(op))
        return [np.asarray(f) for f in sources[name]]
    if isinstance(op, img.SinkOp):
        return None
    raise TesselError(f"{op.name} has no image reference semantics", op_location(op))


def _map(op: img.MapOp, frames: list[np.ndarray]) -> np.ndarray:
    return _typed(evaluate(op.body.block, [_signless(f) for f in frames]), op.result.type)
