"""Winograd convolution (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks",
CVPR'16; TVM's conv2d_NCHWc_winograd): a 3x3 stride-1 convolution as F(m x m, 3 x 3).

Each m x m tile of the output is computed from an a x a tile of the input (a = m + 2):

    Y = A^T [ sum over c of (G g_c G^T) . (B^T d_c B) ] A

`G g G^T` depends on the weights only and is computed at compile time (tg-winograd);
what is left at run time is a transform of the input tiles, a^2 independent products
(tiles x input channels) times (input x output channels) and a transform of the result:
F(4x4, 3x3) does 36 multiply-adds per 16 outputs and input channel where a direct 3x3
does 144. The transform matrices are operands (constants tg-winograd makes), so the op's
meaning is the formula above for any F(m, r), and the printed IR says which one runs.

    %y = tg.conv2d_winograd %x, %u, %bt, %at, %b {pads = array<i64: 1, 1, 1, 1>}
        : (tensor<1x4x56x56x16xf32>, tensor<36x4x4x16x16xf32>, tensor<6x6xf32>, tensor<4x6xf32>,
           tensor<64xf32>) -> tensor<1x4x56x56x16xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, TensorType
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from .base import COMPLEX_OUT_FUSABLE, Props, TgOp, ints, require, require_rank, same_element_type
from .nn import FUNCTIONAL


@irdl_op_definition
class Conv2dWinogradOp(TgOp):
    """A stride-1 convolution on NCHW[cb]c input, NCHW[mb]c output, as F(m x m, r x r):

    input  x [N, CO, H, W, cb]; transformed weight u [a*a, MO, CO, cb, mb] (u[i*a + j, mo,
    co, ci, mi] = (G g G^T)[i, j] for the filter g = w[mo*mb + mi, co*cb + ci]); bt = B^T
    [a, a]; at = A^T [m, a]; bias [MO*mb] (optional); pads (top, left, bottom, right).
    With r = a - m + 1, OH = H + top + bottom - r + 1 (OW alike), the output is cut into
    ceil(OH/m) x ceil(OW/m) tiles, tile (ty, tx) reading the a x a patch d of the padded
    input at (ty*m, tx*m) (zero outside it):

        v[i, j, c]  = sum over (p, q) of bt[i, p] * bt[j, q] * d[p, q, c]
        M[i, j, k]  = sum over c of v[i, j, c] * u[i*a + j, k, c]
        y[s, t, k]  = bias[k] + sum over (i, j) of at[s, i] * at[t, j] * M[i, j, k]

    for the tile's outputs (s, t) inside OH x OW.
    """

    name = "tg.conv2d_winograd"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    input_transform = operand_def(TensorType)
    output_transform = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    pads = prop_def(DenseArrayBase)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = FUNCTIONAL

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, u, bt, at = operand_types[:4]
        et = same_element_type(list(operand_types))
        require_rank(x, 5, "input")
        require_rank(u, 5, "transformed weight")
        require_rank(bt, 2, "input transform")
        require_rank(at, 2, "output transform")
        n, co_count, h, wd, cb = x.get_shape()
        tiles, mo, co, ci, mb = u.get_shape()
        a, a2 = bt.get_shape()
        m, a3 = at.get_shape()
        require(a == a2, lambda: f"the input transform must be square, got {bt}")
        require(a3 == a and 1 <= m <= a, lambda: f"the output transform must be m x {a} with m <= {a}, got {at}")
        require(tiles == a * a, lambda: f"the transformed weight holds {tiles} tiles, the transforms need {a}x{a}")
        require(co == co_count and ci == cb, lambda: f"weight blocks {co}x{ci} differ from the input's {co_count}x{cb}")
        pads = ints(props, "pads")
        require(len(pads) == 4 and all(p >= 0 for p in pads), lambda: f"pads must be 4 values >= 0, got {list(pads)}")
        r = a - m + 1
        oh, ow = h + pads[0] + pads[2] - r + 1, wd + pads[1] + pads[3] - r + 1
        require(oh >= 1 and ow >= 1, lambda: f"the {r}x{r} filter does not fit the padded {h}x{wd} input")
        if len(operand_types) == 5:
            require(
                operand_types[4].get_shape() == (mo * mb,),
                lambda: f"bias must have shape ({mo * mb},), got {operand_types[4]}",
            )
        return [TensorType(et, [n, mo, oh, ow, mb])]


def output_size(op: Conv2dWinogradOp) -> tuple[int, int, int]:
    """(m, OH, OW) of a verified op: the tile's outputs (A^T's rows) and the result's size."""
    at, y = op.output_transform.type, op.result.type
    assert isinstance(at, TensorType) and isinstance(y, TensorType)
    _, _, oh, ow, _ = y.get_shape()
    return at.get_shape()[0], oh, ow
