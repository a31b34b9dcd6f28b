"""A small MLP as an ONNX model with seeded random weights: the README's Python example.

    python examples/api/mlp.py -o mlp.onnx

Input "x" float32[1, 64] -> Gemm 64x128 -> Relu -> Gemm 128x10 -> output "y" float32[1, 10].
"""

from __future__ import annotations

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(seed: int = 0) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)

    def weight(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32), name)

    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [weight("w1", 64, 128), weight("b1", 128), weight("w2", 128, 10), weight("b2", 10)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-o", "--output", default="mlp.onnx")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    onnx.save(build(args.seed), args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
