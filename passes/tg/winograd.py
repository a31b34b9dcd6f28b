"""tg-winograd: 3x3 stride-1 blocked convolutions as Winograd F(m x m, 3 x 3) (tg.conv2d_winograd).

ResNet-style networks spend most of their time in 3x3 stride-1 convolutions, which the
direct kernels already run near the FMA units' peak (as onnxruntime's do): what is left is
doing fewer multiply-adds. F(4x4, 3x3) does 36 per 16 outputs and input channel where the
direct convolution does 144; F(2x2, 3x3) 16 per 4 (TVM's x86 and ARM schedules use both).
The filters' transform G g G^T is computed here, once, in float64.

Which tile, if any (`tile` = 0, the default, chooses): at batch 1 a layer with few tiles
reads each transformed weight only a few times, a^2 x C x K floats streamed from memory for
little arithmetic. So F(4, 3) where each transformed weight serves at least `min_outputs`
output pixels (4 tiles of 4 x 4: ResNet's 7x7 layers qualify) and the layer's transformed
weight stays under `max_weight_bytes`, else F(2, 3) on the same terms (16 tiles of 2 x 2),
else the direct convolution. On a Zen 3 (AVX2) this choice took the zoo's ResNet-18 from
0.82 / 0.72x onnxruntime to 1.30 / 1.16x in two alternating runs, its four 3x3 stride-1
layers from 0.69x to 1.27x (F(4, 3) on each; README, "Winograd convolutions"), the 7x7x512
layers' 37.7 MB transformed weights included.

Error: F(4, 3)'s transforms grow values (up to 8x), so its float32 results carry several
times the rounding error of the direct sum (relative 1e-6 .. 1e-5 of the output; F(2, 3)
about the direct one's); its points (MATRICES) are the ones of the least error measured.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType, f32
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tessel.dialects import tg
from tessel.dialects.tg.base import integer, ints, ints_attr
from tessel.ir.weights import WeightsPass, WeightStore
from tessel.passes.tg._known_weights import insert_array, known_value
from tessel.passes.tg._rewrite import rewrite_once
from tessel.runtime.buffers import aligned_empty

# Lavin & Gray's matrices (interpolation points 0, 1, -1 and infinity for F(2, 3); 0, +-1,
# +-2, infinity for F(4, 3)); tests check Y = A^T [(G g G^T) . (B^T d B)] A against the
# direct correlation
MATRICES: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {
    2: (
        np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float64),
        np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float64),
    ),
    # F(4, 3) at the points 0, +-2/3, +-3/2, not Lavin & Gray's 0, +-1, +-2: pairs {c, 1/c}
    # whose transforms cancel (Alam et al., "Winograd convolution for deep neural networks:
    # efficient point selection", 2022). Of the 7315 sets of 0 and four fractions +-n/d
    # (n, d <= 4) compared, the least float32 error, at the same cost (the transforms
    # multiply by every entry, zero or not): sampled 2-D tiles over 64 channels against a
    # float64 direct sum, median 8.8e-7 and worst 2.5e-6 of the output's scale, against
    # 1.95e-6 and 1.27e-5 (direct float32: 1.8e-7). Inception-v3's output moved from
    # 1.12e-4 to 6.8e-5 of onnxruntime's (6.4e-5 from float64, onnxruntime's own 2.9e-5).
    # B^T's rows are coprime integers, their scale moved into G.
    4: (
        np.array(
            [
                [36, 0, -97, 0, 36, 0],
                [0, 18, 27, -8, -12, 0],
                [0, -18, 27, 8, -12, 0],
                [0, -12, -8, 27, 18, 0],
                [0, 12, -8, -27, 18, 0],
                [0, 36, 0, -97, 0, 36],
            ],
            np.float64,
        ),
        np.array(
            [
                [1 / 36, 0, 0],
                [27 / 520, 9 / 260, 3 / 130],
                [27 / 520, -9 / 260, 3 / 130],
                [4 / 585, 2 / 195, 1 / 65],
                [4 / 585, -2 / 195, 1 / 65],
                [0, 0, 1 / 36],
            ],
            np.float64,
        ),
        np.array(
            [
                [1, 1, 1, 1, 1, 0],
                [0, 2 / 3, -2 / 3, 3 / 2, -3 / 2, 0],
                [0, 4 / 9, 4 / 9, 9 / 4, 9 / 4, 0],
                [0, 8 / 27, -8 / 27, 27 / 8, -27 / 8, 1],
            ],
            np.float64,
        ),
    ),
}  # m -> (B^T [a, a], G [a, 3], A^T [m, a])

MIN_OUTPUTS = 64  # output pixels (batch x tiles x m x m) each transformed weight must serve
MAX_WEIGHT_BYTES = 64 << 20  # the transformed weight of one layer


def transform_weight(w: np.ndarray, m: int) -> np.ndarray:
    """A blocked 3x3 filter w [MO, CO, 3, 3, cb, mb] as F(m, 3)'s u [a*a, MO, CO, cb, mb]:
    u[i*a + j] = (G g G^T)[i, j] for every filter g (float64, rounded once)."""
    _, g, _ = MATRICES[m]
    a = m + 2
    # per output-channel block, the taps first, then two products over them: the float64
    # temporaries stay in the cache (one einsum over a 512 x 512 layer took 0.4 s; whole-
    # array products 0.2 s of their 300 MB of float64 for ResNet-18)
    # (on a cache line, as the executor wants its weights: it copies any that are not)
    out = aligned_empty((a * a, *w.shape[:2], *w.shape[4:]), np.float32)
    for o in range(w.shape[0]):
        taps = np.ascontiguousarray(w[o].transpose(1, 2, 0, 3, 4), dtype=np.float64).reshape(3, -1)
        rows = (g @ taps).reshape(a, 3, -1)  # [i, q, rest]
        out[:, o] = np.matmul(g, rows).reshape(a * a, *w.shape[1:2], *w.shape[4:])  # [i * a + j, rest]
    return out


def choose_tile(
    batch: int, out_h: int, out_w: int, channels: int, filters: int, min_outputs: int, max_bytes: int
) -> int | None:
    """F(4, 3), F(2, 3) or None (the direct convolution), by the terms in the module doc."""
    for m in (4, 2):
        tiles = batch * -(-out_h // m) * -(-out_w // m)
        if tiles * m * m >= min_outputs and (m + 2) ** 2 * channels * filters * 4 <= max_bytes:
            return m
    return None


@dataclass
class ToWinograd(RewritePattern):
    store: WeightStore | None
    tile: int
    min_outputs: int
    max_weight_bytes: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv2dNchwcOp, rewriter: PatternRewriter, /) -> None:
        x, w, y = op.input.type, op.weight.type, op.result.type
        if not (isinstance(x, TensorType) and isinstance(w, TensorType) and isinstance(y, TensorType)):
            return
        if x.element_type != f32 or w.element_type != f32:
            return
        p = op.properties
        mo, co, kh, kw, cb, mb = w.get_shape()
        if (kh, kw) != (3, 3) or ints(p, "strides") != (1, 1) or ints(p, "dilations") != (1, 1):
            return
        if "groups" in p and integer(p, "groups") != 1:
            return
        n, _, oh, ow, _ = y.get_shape()
        m = self.tile or choose_tile(n, oh, ow, co * cb, mo * mb, self.min_outputs, self.max_weight_bytes)
        if m is None:
            return
        value = known_value(self.store, op.weight)
        if value is None:
            return  # weights computed at run time stay a direct convolution
        bt, _, at = MATRICES[m]
        u = insert_array(
            rewriter, self.store, transform_weight(value, m), f"{op.weight.name_hint or 'weight'}_winograd"
        )
        bt_v = insert_array(rewriter, None, bt.astype(np.float32), "bt")
        at_v = insert_array(rewriter, None, at.astype(np.float32), "at")
        operands = [op.input, u, bt_v, at_v, *([op.bias] if op.bias is not None else [])]
        new = tg.Conv2dWinogradOp.make(operands, {"pads": ints_attr(ints(p, "pads"))})
        new.results[0].name_hint = op.result.name_hint
        rewriter.replace(op, new)


@dataclass(frozen=True)
class TgWinograd(WeightsPass):
    name = "tg-winograd"

    tile: int = 0  # 4: F(4x4, 3x3), 2: F(2x2, 3x3), 0: chosen per layer
    min_outputs: int = MIN_OUTPUTS
    max_weight_bytes: int = MAX_WEIGHT_BYTES

    def __post_init__(self) -> None:
        if self.tile not in (0, 2, 4):
            raise ValueError(f"tg-winograd: tile must be 2, 4 or 0 (chosen per layer), got {self.tile}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        pattern = ToWinograd(self.store, self.tile, self.min_outputs, self.max_weight_bytes)
        rewrite_once(op, pattern)
