"""Export the zoo to ONNX as a user would: PyTorch's exporter, opset 17, dynamic batch (and
sequence) axes; the int8 model through onnxruntime's static quantizer (QDQ).

    python examples/zoo/export.py --out build/zoo            # every model, full size
    python examples/zoo/export.py --out build/zoo-small --small resnet18 bert

Writes <name>.onnx and <name>.inputs.npz (the example inputs, by input name) per model, and
index.json (name -> family, note, input shapes, dynamic axes). Runs in the zoo's venv.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from models import BY_NAME, QUANTIZED, ZOO  # noqa: E402

OPSET = 17


def dynamic_axes(family: str, names: list[str], inputs: tuple[torch.Tensor, ...], outputs: list[str]) -> dict:
    """Batch is dynamic everywhere; token sequences are dynamic too (what users export)."""
    axes: dict[str, dict[int, str]] = {}
    for name, x in zip(names, inputs):
        axes[name] = {0: "batch"}
        if family == "transformer" and x.dtype == torch.int64 and x.dim() == 2:
            axes[name][1] = "sequence"
    for name in outputs:
        axes[name] = {0: "batch"}
    return axes


def no_constant_weights(model: torch.nn.Module) -> None:
    """Some architectures zero-initialize a layer (ViT's classifier head, GPT-2's biases):
    with random weights that makes an output constant and a comparison meaningless. Every
    constant weight matrix gets seeded random values instead (biases and norms stay)."""
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and float(p.std()) == 0.0:
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)


def export(name: str, out: Path, small: bool) -> dict:
    entry = BY_NAME[name]
    # nn.MultiheadAttention's inference fast path (_native_multi_head_attention) has no
    # ONNX export; users switch it off for export, as here
    torch.backends.mha.set_fastpath_enabled(False)
    model, inputs, in_names, out_names = entry.build(small)
    no_constant_weights(model)
    axes = dynamic_axes(entry.family, in_names, inputs, out_names)
    path = out / f"{name}.onnx"
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model, inputs, str(path), opset_version=OPSET, dynamo=False, input_names=in_names,
            output_names=out_names, dynamic_axes=axes, do_constant_folding=True,
        )  # fmt: skip
    np.savez(out / f"{name}.inputs.npz", **{n: x.numpy() for n, x in zip(in_names, inputs)})
    shapes = {n: list(x.shape) for n, x in zip(in_names, inputs)}
    dynamic = {k: v for k, v in axes.items() if k in in_names}
    return {"family": entry.family, "note": entry.note, "source": entry.source, "inputs": shapes, "dynamic": dynamic}


def quantize(name: str, source: str, out: Path, index: dict) -> dict:
    """onnxruntime's static quantizer (QDQ, int8 weights per channel and activations),
    calibrated on seeded random inputs of the fp32 model's shape."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    shapes = index[source]["inputs"]

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            rng = np.random.default_rng(7)
            self.batches = iter(
                [{k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()} for _ in range(8)]
            )

        def get_next(self):  # noqa: ANN201 - onnxruntime's interface
            return next(self.batches, None)

    quantize_static(
        str(out / f"{source}.onnx"), str(out / f"{name}.onnx"), Reader(), quant_format=QuantFormat.QDQ,
        per_channel=True, activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
    )  # fmt: skip
    data = dict(np.load(out / f"{source}.inputs.npz"))
    np.savez(out / f"{name}.inputs.npz", **data)
    note = f"{source} quantized by onnxruntime (QDQ, int8, per channel)"
    return {**index[source], "family": "int8", "note": note, "source": "onnxruntime quantize_static"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="models to export (default: all)")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--small", action="store_true", help="the small variants (what make test checks)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    names = args.names or [m.name for m in ZOO] + list(QUANTIZED)
    unknown = [n for n in names if n not in BY_NAME and n not in QUANTIZED]
    if unknown:
        parser.error(f"unknown models: {', '.join(unknown)} (known: {', '.join([*BY_NAME, *QUANTIZED])})")
    index_path = args.out / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    for name in names:
        start = time.perf_counter()
        if name in QUANTIZED:
            source = QUANTIZED[name]
            if source not in index:
                index[source] = export(source, args.out, args.small)
            index[name] = quantize(name, source, args.out, index)
        else:
            index[name] = export(name, args.out, args.small)
        size = (args.out / f"{name}.onnx").stat().st_size / 2**20
        print(f"{name}: {size:.1f} MiB in {time.perf_counter() - start:.1f} s", flush=True)
        index_path.write_text(json.dumps(index, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
