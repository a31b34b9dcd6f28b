"""MobileNet-v1 (Howard et al., 2017) as an ONNX model with random, seeded weights.

    python examples/models/mobilenet_v1.py -o mobilenet_v1.onnx [--batch 1] [--image 224]

A 3x3/2 stem, thirteen depthwise-separable blocks (3x3 depthwise conv with groups = channels,
then 1x1 pointwise conv, each followed by BatchNormalization and ReLU6 as Clip(0, 6)),
global average pooling, a 1000-way Gemm and a Softmax.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx_builder import GraphBuilder, parser, save

# (output channels, stride) of the depthwise-separable blocks
BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), *[(512, 1)] * 5, (1024, 2), (1024, 1)]


def build(batch: int = 1, image: int = 224, seed: int = 0, classes: int = 1000) -> onnx.ModelProto:
    g = GraphBuilder("mobilenet_v1", seed)
    lo, hi = g.const("relu6.min", 0.0, np.float32), g.const("relu6.max", 6.0, np.float32)

    def relu6(x: str) -> str:
        return g.node("Clip", [x, lo, hi], name="relu6")

    x = g.input("input", [batch, 3, image, image])
    y = relu6(g.batch_norm(g.conv(x, 3, 32, 3, 2, 1), 32))
    cin = 32
    for cout, stride in BLOCKS:
        y = relu6(g.batch_norm(g.conv(y, cin, cin, 3, stride, 1, groups=cin, name="dw"), cin))
        y = relu6(g.batch_norm(g.conv(y, cin, cout, 1, 1, 0, name="pw"), cout))
        cin = cout
    y = g.node("Flatten", [g.node("GlobalAveragePool", [y])], axis=1)
    y = g.gemm(y, cin, classes)
    g.nodes.append(onnx.helper.make_node("Softmax", [y], ["probabilities"], name="softmax", axis=1))
    g.output("probabilities")
    return g.model()


def main() -> None:
    p = parser(__doc__, "mobilenet_v1.onnx")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--image", type=int, default=224)
    args = p.parse_args()
    save(build(args.batch, args.image, args.seed), args.output)


if __name__ == "__main__":
    main()
