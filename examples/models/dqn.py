"""The Nature DQN (Mnih et al., 2015) Q-network as an ONNX model with random, seeded weights.

    python examples/models/dqn.py -o dqn.onnx [--batch 1]

Four stacked 84x84 frames, three convolutions (8x8/4, 4x4/2, 3x3/1) with ReLU, a 512-unit
fully connected layer and one Q-value per action (18 Atari actions).
"""

from __future__ import annotations

import onnx
from onnx_builder import GraphBuilder, parser, save


def build(batch: int = 1, seed: int = 0, actions: int = 18) -> onnx.ModelProto:
    g = GraphBuilder("dqn", seed)
    x = g.input("frames", [batch, 4, 84, 84])
    y = g.node("Relu", [g.conv(x, 4, 32, 8, 4, 0, bias=True)])
    y = g.node("Relu", [g.conv(y, 32, 64, 4, 2, 0, bias=True)])
    y = g.node("Relu", [g.conv(y, 64, 64, 3, 1, 0, bias=True)])
    y = g.node("Flatten", [y], axis=1)
    y = g.node("Relu", [g.gemm(y, 64 * 7 * 7, 512)])
    g.output(g.gemm(y, 512, actions, output="q_values"))
    return g.model()


def main() -> None:
    p = parser(__doc__, "dqn.onnx")
    p.add_argument("--batch", type=int, default=1)
    args = p.parse_args()
    save(build(args.batch, args.seed), args.output)


if __name__ == "__main__":
    main()
