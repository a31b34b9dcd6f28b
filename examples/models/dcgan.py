"""The DCGAN generator (Radford et al., 2016) as an ONNX model with random, seeded weights.

    python examples/models/dcgan.py -o dcgan.onnx [--batch 1]

A 100-dim latent vector through four transposed convolutions with BatchNormalization and
ReLU (4x4 -> 8x8 -> 16x16 -> 32x32) and a last transposed convolution to a 64x64 RGB image
with Tanh.
"""

from __future__ import annotations

import onnx
from onnx_builder import GraphBuilder, parser, save


def build(batch: int = 1, seed: int = 0, latent: int = 100, width: int = 64) -> onnx.ModelProto:
    g = GraphBuilder("dcgan_generator", seed)
    z = g.input("z", [batch, latent, 1, 1])
    y = g.node("Relu", [g.batch_norm(g.conv_transpose(z, latent, width * 8, 4, 1, 0), width * 8)])
    cin = width * 8
    for cout in (width * 4, width * 2, width):
        y = g.node("Relu", [g.batch_norm(g.conv_transpose(y, cin, cout, 4, 2, 1), cout)])
        cin = cout
    y = g.conv_transpose(y, cin, 3, 4, 2, 1)
    g.nodes.append(onnx.helper.make_node("Tanh", [y], ["image"], name="tanh"))
    g.output("image")
    return g.model()


def main() -> None:
    p = parser(__doc__, "dcgan.onnx")
    p.add_argument("--batch", type=int, default=1)
    args = p.parse_args()
    save(build(args.batch, args.seed), args.output)


if __name__ == "__main__":
    main()
