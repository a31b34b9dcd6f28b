"""ResNet-18 (He et al., 2016) as an ONNX model with random, seeded weights.

    python examples/models/resnet18.py -o resnet18.onnx [--batch 1] [--image 224] [--seed 0]

Conv-BatchNormalization-Relu stems, eight BasicBlocks with identity or 1x1-conv shortcuts,
global average pooling and a 1000-way Gemm: 62 nodes, 11.7 M parameters.
"""

from __future__ import annotations

import onnx
from onnx_builder import GraphBuilder, parser, save


def basic_block(g: GraphBuilder, x: str, cin: int, cout: int, stride: int) -> str:
    y = g.node("Relu", [g.batch_norm(g.conv(x, cin, cout, 3, stride, 1), cout)])
    y = g.batch_norm(g.conv(y, cout, cout, 3, 1, 1), cout)
    shortcut = x
    if stride != 1 or cin != cout:
        shortcut = g.batch_norm(g.conv(x, cin, cout, 1, stride, 0, name="downsample"), cout)
    return g.node("Relu", [g.node("Add", [y, shortcut])])


def build(batch: int = 1, image: int = 224, seed: int = 0, classes: int = 1000) -> onnx.ModelProto:
    g = GraphBuilder("resnet18", seed)
    x = g.input("input", [batch, 3, image, image])
    y = g.node("Relu", [g.batch_norm(g.conv(x, 3, 64, 7, 2, 3), 64)])
    y = g.node("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        y = basic_block(g, y, cin, cout, stride)
        y = basic_block(g, y, cout, cout, 1)
        cin = cout
    y = g.node("Flatten", [g.node("GlobalAveragePool", [y])], axis=1)
    g.output(g.gemm(y, 512, classes, output="logits"))
    return g.model()


def main() -> None:
    p = parser(__doc__, "resnet18.onnx")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--image", type=int, default=224)
    args = p.parse_args()
    save(build(args.batch, args.image, args.seed), args.output)


if __name__ == "__main__":
    main()
