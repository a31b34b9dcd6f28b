"""A transformer encoder block (Vaswani et al., 2017; post-norm, as BERT) as an ONNX model
with random, seeded weights.

    python examples/models/transformer.py -o transformer.onnx [--seq 128] [--dim 256] [--heads 4]

Multi-head self-attention (MatMul projections, Reshape/Transpose into heads, scaled
scores, Softmax, weighted sum), residual + LayerNormalization, a GELU feed-forward network
(4x wide), residual + LayerNormalization.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx_builder import GraphBuilder, parser, save


def build(batch: int = 1, seq: int = 128, dim: int = 256, heads: int = 4, seed: int = 0) -> onnx.ModelProto:
    g = GraphBuilder("transformer_encoder", seed, opset=20)  # Gelu is an operator from opset 20
    hd = dim // heads
    x = g.input("hidden", [batch, seq, dim])
    split = g.const("split_heads", [batch, seq, heads, hd])
    merge = g.const("merge_heads", [batch, seq, dim])

    def heads_of(v: str, perm: list[int]) -> str:
        return g.node("Transpose", [g.node("Reshape", [v, split])], perm=perm)

    q = heads_of(g.matmul(x, dim, dim, name="query"), [0, 2, 1, 3])
    k = heads_of(g.matmul(x, dim, dim, name="key"), [0, 2, 3, 1])
    v = heads_of(g.matmul(x, dim, dim, name="value"), [0, 2, 1, 3])
    scale = g.const("scale", 1.0 / np.sqrt(hd), np.float32)
    scores = g.node("Mul", [g.node("MatMul", [q, k], name="scores"), scale])
    attn = g.node("Softmax", [scores], axis=-1)
    ctx = g.node("Transpose", [g.node("MatMul", [attn, v], name="context")], perm=[0, 2, 1, 3])
    ctx = g.node("Reshape", [ctx, merge])
    y = g.layer_norm(g.node("Add", [x, g.matmul(ctx, dim, dim, name="output")]), dim)
    ff = g.node("Gelu", [g.matmul(y, dim, 4 * dim, name="ffn_in")])
    ff = g.matmul(ff, 4 * dim, dim, name="ffn_out")
    g.output(g.layer_norm(g.node("Add", [y, ff]), dim, output="encoded"))
    return g.model()


def main() -> None:
    p = parser(__doc__, "transformer.onnx")
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    args = p.parse_args()
    save(build(1, args.seq, args.dim, args.heads, args.seed), args.output)


if __name__ == "__main__":
    main()
