"""The kernel of `tg.roi_align` (dialects/tg/detection.py).

One reduction stage over the output (roi, channel, bin row, bin column) with the
sampling_ratio x sampling_ratio samples of a bin as the reduction axes: each sample reads
its roi's corners and batch index (data, turned into SSA indices), computes its bilinear
taps exactly as ONNX's reference does (the same float operations in the same order, in
the compute type) and loads the four pixels at data-dependent indices, clamped so that
no read leaves the image. Average mode adds the weighted taps and divides by the sample
count in the then region; max mode takes the largest weighted tap.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import tg
from tessel.dialects.tg.base import flag, floating, integer, string
from tessel.passes.tg.lowering.index_maps import Index
from tessel.passes.tg.lowering.scalar import ElementBuilder, compute_type, element_of, float_type, shape_of
from tessel.passes.tg.lowering.stages import KernelBuilder, Then, _axes, anchor


def _index(b: ElementBuilder, value: SSAValue) -> SSAValue:
    """An index-typed SSA value of a float (truncated toward zero) or an i64."""
    if value.type != i64:
        value = b.emit(arith.FPToSIOp(value, i64))
    return b.emit(arith.IndexCastOp(value, IndexType()))


def _clamp(b: ElementBuilder, i: SSAValue, n: int) -> SSAValue:
    zero, last = b.const(0, IndexType()), b.const(n - 1, IndexType())
    return b.emit(arith.MinSIOp(b.emit(arith.MaxSIOp(i, zero)), last))


def _axis_taps(b: ElementBuilder, v: SSAValue, size: int) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue, SSAValue]:
    """Along one axis of length `size`: (low, high, weight of low, weight of high, outside)
    for the sample coordinate v, as ONNX's pre_calc_for_bilinear_interpolate."""
    t = v.type
    zero, one = b.const(0.0, t), b.const(1.0, t)
    # unordered: a NaN coordinate counts as outside, so that no NaN reaches the conversion
    outside = b.emit(
        arith.OrIOp(
            b.emit(arith.CmpfOp(v, b.const(-1.0, t), "ult")), b.emit(arith.CmpfOp(v, b.const(float(size), t), "ugt"))
        )
    )
    v = b.emit(arith.SelectOp(outside, zero, b.emit(arith.MaximumfOp(v, zero))))
    low = _index(b, v)
    last = b.const(size - 1, IndexType())
    at_edge = b.emit(arith.CmpiOp(low, last, "sge"))
    low = b.emit(arith.SelectOp(at_edge, last, low))
    high = b.emit(arith.SelectOp(at_edge, last, b.emit(arith.AddiOp(low, b.const(1, IndexType())))))
    low_f = b.emit(arith.SIToFPOp(b.emit(arith.IndexCastOp(low, i64)), float_type(t)))
    v = b.emit(arith.SelectOp(at_edge, low_f, v))
    frac = b.emit(arith.SubfOp(v, low_f))
    return _clamp(b, low, size), _clamp(b, high, size), b.emit(arith.SubfOp(one, frac)), frac, outside


@anchor(tg.RoiAlignOp)
def _roi_align(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x, rois, batch = op.operands
    p = op.properties
    ratio = integer(p, "sampling_ratio")
    if ratio == 0:
        raise NotImplementedError(
            "sampling_ratio 0 samples a number of points per bin that depends on the regions' sizes "
            "(the reference target runs it; compiled kernels need sampling_ratio > 0)"
        )
    out_h, out_w = integer(p, "output_height"), integer(p, "output_width")
    scale, half_pixel = floating(p, "spatial_scale"), flag(p, "half_pixel")
    average = string(p, "mode", ("avg", "max")) == "avg"
    n, _, height, width = shape_of(x)
    et = element_of(x)
    acc_t = compute_type(et)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        t = acc_t
        roi = s[0]
        offset = b.const(0.5 if half_pixel else 0.0, t)
        corner = [
            b.emit(
                arith.SubfOp(
                    b.emit(arith.MulfOp(b.value(rois, [roi, AffineExpr.constant(k)]), b.const(scale, t))), offset
                )
            )
            for k in range(4)
        ]
        start_w, start_h = corner[0], corner[1]
        roi_w, roi_h = b.emit(arith.SubfOp(corner[2], start_w)), b.emit(arith.SubfOp(corner[3], start_h))
        if not half_pixel:  # malformed regions become 1x1
            roi_w = b.emit(arith.MaximumfOp(roi_w, b.const(1.0, t)))
            roi_h = b.emit(arith.MaximumfOp(roi_h, b.const(1.0, t)))
        taps = []
        for bin_axis, sample_axis, start, extent, bins, size in (
            (s[2], r[0], start_h, roi_h, out_h, height),
            (s[3], r[1], start_w, roi_w, out_w, width),
        ):
            bin_size = b.emit(arith.DivfOp(extent, b.const(float(bins), t)))
            bin_f = b.emit(arith.SIToFPOp(b.emit(arith.IndexCastOp(b.ssa(bin_axis), i64)), float_type(t)))
            sample_f = b.emit(arith.SIToFPOp(b.emit(arith.IndexCastOp(b.ssa(sample_axis), i64)), float_type(t)))
            # start + bin * size + (sample + 0.5) * size / ratio, in that order
            inner = b.emit(arith.MulfOp(b.emit(arith.AddfOp(sample_f, b.const(0.5, t))), bin_size))
            inner = b.emit(arith.DivfOp(inner, b.const(float(ratio), t)))
            coordinate = b.emit(arith.AddfOp(b.emit(arith.AddfOp(start, b.emit(arith.MulfOp(bin_f, bin_size)))), inner))
            taps.append(_axis_taps(b, coordinate, size))
        (y_low, y_high, hy, ly, y_out), (x_low, x_high, hx, lx, x_out) = taps
        outside = b.emit(arith.OrIOp(y_out, x_out))
        image = _clamp(b, _index(b, b.value(batch, [roi])), n)
        channel = b.ssa(s[1])
        zero = b.const(0.0, t)
        terms = []
        for row, column, wy, wx in (
            (y_low, x_low, hy, hx),
            (y_low, x_high, hy, lx),
            (y_high, x_low, ly, hx),
            (y_high, x_high, ly, lx),
        ):
            weight = b.emit(arith.SelectOp(outside, zero, b.emit(arith.MulfOp(wy, wx))))
            terms.append(b.emit(arith.MulfOp(weight, b.value(x, [image, channel, row, column]))))
        combined = terms[0]
        for term in terms[1:]:
            combined = b.emit(arith.AddfOp(combined, term) if average else arith.MaximumfOp(combined, term))
        return combined

    def finish(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        if average:
            acc = b.emit(arith.DivfOp(acc, b.const(float(ratio * ratio), acc.type)))
        return then(b, s, acc)

    kb.reduction(
        "roi_align",
        dests[0],
        et,
        _axes("o", shape_of(op.results[0])),
        [("sy", ratio), ("sx", ratio)],
        "add" if average else "max",
        0.0 if average else float("-inf"),
        acc_t,
        body,
        finish,
    )
