"""A small helper to write ONNX graphs by hand with random, seeded weights.

Used by the model scripts in this folder, so that every example model is built here from
code (no downloads) and is the same on every machine.
"""

from __future__ import annotations

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def parser(doc: str, output: str) -> argparse.ArgumentParser:
    """The command line every model script shares: -o and --seed (it adds its own sizes)."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("-o", "--output", default=output)
    p.add_argument("--seed", type=int, default=0)
    return p


def save(model: onnx.ModelProto, path: str) -> None:
    onnx.save(model, path)
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    print(f"wrote {path}: {len(model.graph.node)} nodes, {params / 1e6:.1f} M parameters")


class GraphBuilder:
    def __init__(self, name: str, seed: int, opset: int = OPSET):
        self.name = name
        self.opset = opset
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.outputs: list[onnx.ValueInfoProto] = []
        self._count: dict[str, int] = {}

    def fresh(self, prefix: str) -> str:
        n = self._count.get(prefix, 0)
        self._count[prefix] = n + 1
        return f"{prefix}_{n}" if n else prefix

    def input(self, name: str, shape: list[int], dtype: int = TensorProto.FLOAT) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, dtype, shape))
        return name

    def output(self, name: str, dtype: int = TensorProto.FLOAT) -> None:
        self.outputs.append(helper.make_tensor_value_info(name, dtype, None))

    def weight(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op_type: str, inputs: list[str], name: str | None = None, **attrs) -> str:
        name = self.fresh(name or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=name, **attrs))
        return name

    def parameters(self) -> int:
        return sum(int(np.prod(t.dims)) for t in self.initializers)

    # ------------------------------------------------------------------ layers

    def conv(
        self,
        x: str,
        cin: int,
        cout: int,
        k: int,
        stride: int = 1,
        pad: int = 0,
        groups: int = 1,
        bias: bool = False,
        name: str = "conv",
    ) -> str:
        name = self.fresh(name)
        fan_in = cin // groups * k * k
        w = (self.rng.standard_normal((cout, cin // groups, k, k)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        inputs = [x, self.weight(f"{name}.weight", w)]
        if bias:
            inputs.append(self.weight(f"{name}.bias", self.rng.standard_normal(cout).astype(np.float32) * 0.1))
        self.nodes.append(
            helper.make_node(
                "Conv",
                inputs,
                [name],
                name=name,
                kernel_shape=[k, k],
                strides=[stride, stride],
                pads=[pad] * 4,
                group=groups,
            )
        )
        return name

    def batch_norm(self, x: str, channels: int, name: str = "bn") -> str:
        name = self.fresh(name)
        r = self.rng
        params = [
            self.weight(f"{name}.weight", r.uniform(0.5, 1.5, channels).astype(np.float32)),
            self.weight(f"{name}.bias", (r.standard_normal(channels) * 0.1).astype(np.float32)),
            self.weight(f"{name}.running_mean", (r.standard_normal(channels) * 0.1).astype(np.float32)),
            self.weight(f"{name}.running_var", r.uniform(0.5, 1.5, channels).astype(np.float32)),
        ]
        self.nodes.append(helper.make_node("BatchNormalization", [x, *params], [name], name=name, epsilon=1e-5))
        return name

    def conv_transpose(self, x: str, cin: int, cout: int, k: int, stride: int, pad: int, name: str = "deconv") -> str:
        name = self.fresh(name)
        w = (self.rng.standard_normal((cin, cout, k, k)) * np.sqrt(1.0 / (cin * k * k / stride**2))).astype(np.float32)
        self.nodes.append(
            helper.make_node(
                "ConvTranspose",
                [x, self.weight(f"{name}.weight", w)],
                [name],
                name=name,
                kernel_shape=[k, k],
                strides=[stride, stride],
                pads=[pad] * 4,
            )
        )
        return name

    def matmul(self, x: str, fin: int, fout: int, name: str = "linear", bias: bool = True) -> str:
        """x @ W (+ b) with W of shape (fin, fout), as ONNX exporters write a Linear layer."""
        name = self.fresh(name)
        w = (self.rng.standard_normal((fin, fout)) * np.sqrt(1.0 / fin)).astype(np.float32)
        y = self.node("MatMul", [x, self.weight(f"{name}.weight", w)], name=f"{name}.matmul")
        if not bias:
            return y
        b = (self.rng.standard_normal(fout) * 0.02).astype(np.float32)
        return self.node("Add", [y, self.weight(f"{name}.bias", b)], name=f"{name}.add")

    def layer_norm(self, x: str, dim: int, name: str = "ln", output: str | None = None) -> str:
        name = self.fresh(name)
        scale = self.weight(f"{name}.weight", self.rng.uniform(0.8, 1.2, dim).astype(np.float32))
        bias = self.weight(f"{name}.bias", (self.rng.standard_normal(dim) * 0.02).astype(np.float32))
        out = output or name
        self.nodes.append(
            helper.make_node("LayerNormalization", [x, scale, bias], [out], name=name, axis=-1, epsilon=1e-5)
        )
        return out

    def const(self, name: str, values, dtype=np.int64) -> str:
        return self.weight(self.fresh(name), np.asarray(values, dtype=dtype))

    def gemm(self, x: str, fin: int, fout: int, name: str = "fc", output: str | None = None) -> str:
        name = self.fresh(name)
        w = (self.rng.standard_normal((fout, fin)) * np.sqrt(1.0 / fin)).astype(np.float32)
        b = (self.rng.standard_normal(fout) * 0.01).astype(np.float32)
        inputs = [x, self.weight(f"{name}.weight", w), self.weight(f"{name}.bias", b)]
        self.nodes.append(helper.make_node("Gemm", inputs, [output or name], name=name, transB=1))
        return output or name

    def model(self) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.initializers)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", self.opset)], producer_name="tessel-examples"
        )
        model.ir_version = 8
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        onnx.checker.check_model(model, full_check=True)
        return model
