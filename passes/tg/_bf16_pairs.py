"""Weights as bfloat16 pairs: two neighbours along a contraction axis in one i32 word (the
high half the odd one), each rounded to the nearest bfloat16, ties to even; what
kernel.bf16dot2 (vdpbf16ps) multiplies with the activations' pairs. Shared by
tg-bf16-dense and tg-bf16-conv."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from tessel.dialects.tg.reference import bf16_round
from tessel.ir.weights import WeightStore
from tessel.passes.tg._known_weights import insert_array, known_value


def pack_pairs(w: np.ndarray, axis: int) -> np.ndarray:
    """float32 w as int32 words of bfloat16 pairs along `axis` (its length halved, rounded
    up: a zero pads an odd one): word = bf16(w[2p + 1]) << 16 | bf16(w[2p])."""
    w = np.asarray(w, np.float32)
    if w.shape[axis] % 2:
        pad = [(0, 0)] * w.ndim
        pad[axis] = (0, 1)
        w = np.pad(w, pad)
    bits = bf16_round(w).view(np.uint32) >> np.uint32(16)
    low = np.take(bits, np.arange(0, w.shape[axis], 2), axis=axis)
    high = np.take(bits, np.arange(1, w.shape[axis], 2), axis=axis)
    return ((high << np.uint32(16)) | low).view(np.int32)


def packed_weight(rewriter: PatternRewriter, store: WeightStore | None, weight: SSAValue, axis: int) -> SSAValue | None:
    """The known float32 `weight` (a tg.constant, or a tg.weight in `store`) as bfloat16 pairs
    along `axis`: a new tg.constant (small, or without a store) or tg.weight, inserted before
    the matched op; None where the weight is computed at run time (it stays float32)."""
    value = known_value(store, weight)
    if value is None:
        return None
    return insert_array(rewriter, store, pack_pairs(value, axis), f"{weight.name_hint or 'weight'}_bf16")
