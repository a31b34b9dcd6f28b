"""Write int8 layers as `tg` IR for the VTA target: ResNet-18's C1-C12 and a quantized matmul.

    python examples/vta/layers.py C9 -o build/vta/c9.mlir      # + c9.weights.npz beside it
    python examples/vta/layers.py matmul -o build/vta/mm.mlir  # (64 x 256) x (256 x 128)
    python examples/vta/layers.py resnet -o build/vta/r.mlir   # C1 (CPU) then C2 and C3 (VTA)
    python examples/vta/layers.py resnet18 -o build/vta/r18.mlir  # the whole int8 network

Each layer is the chain `tg-to-vta` recognises: widen int8 to int32, conv2d (or matmul + bias
add), ReLU, arithmetic shift, clip to [-128, 127], narrow to int8. Weights are random int8
(seeded), biases random int32; the shift keeps outputs spread over the int8 range.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from tessel.dialects.vta.layer import RESNET18


def _t(shape: tuple[int, ...], et: str) -> str:
    return "tensor<" + "x".join(map(str, shape)) + f"x{et}>"


def conv_chain(
    x: str,
    shape: tuple[int, ...],
    name: str,
    oc: int,
    k: int,
    s: int,
    shift: int,
    lines: list[str],
    weights: dict[str, np.ndarray],
    rng: np.random.Generator,
    relu: bool = True,
) -> tuple[str, tuple[int, ...]]:
    """Append one int8 conv layer to `lines`; returns the result value and its shape."""
    _, c, h, w = shape
    p = k // 2
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    weights[f"{name}.w"] = rng.integers(-128, 128, (oc, c, k, k), dtype=np.int8)
    weights[f"{name}.b"] = rng.integers(-(1 << 15), 1 << 15, (oc,), dtype=np.int32)
    wt, bt, xt = _t((oc, c, k, k), "i8"), _t((oc,), "i32"), _t(shape, "i32")
    yt = _t((1, oc, oh, ow), "i32")
    lines += [
        f"    %{name}.w = tg.weight @{name}.w : {wt}",
        f"    %{name}.b = tg.weight @{name}.b : {bt}",
        f"    %{name}.xi = tg.cast {x} : {_t(shape, 'i8')} -> {xt}",
        f"    %{name}.wi = tg.cast %{name}.w : {wt} -> {_t((oc, c, k, k), 'i32')}",
        f"    %{name}.c = tg.conv2d %{name}.xi, %{name}.wi, %{name}.b {{strides = array<i64: {s}, {s}>, pads = array<i64: {p}, {p}, {p}, {p}>, "
        f"dilations = array<i64: 1, 1>, groups = 1 : i64}} : ({xt}, {_t((oc, c, k, k), 'i32')}, {bt}) -> {yt}",
        *([f"    %{name}.r = tg.relu %{name}.c : {yt}"] if relu else []),
        f"    %{name}.s = tg.shift_right %{name}.{'r' if relu else 'c'} {{amount = {shift} : i64}} : {yt}",
        f"    %{name}.l = tg.clip %{name}.s {{min = -128 : i32, max = 127 : i32}} : {yt}",
        f"    %{name} = tg.cast %{name}.l : {yt} -> {_t((1, oc, oh, ow), 'i8')}",
    ]
    return f"%{name}", (1, oc, oh, ow)


def shift_for(c: int, k: int) -> int:
    """A requantizing shift that keeps random int8 layers' outputs in range: ~log2 of the sum's spread."""
    return max(1, round(np.log2(np.sqrt(c * k * k) * 74 * 74 / 40)))


def residual_add(a: str, b: str, shape: tuple[int, ...], name: str, lines: list[str]) -> str:
    """relu(a + b) saturated to int8: the join of a basic block (on the CPU: VTA has no
    second input stream for its ALU)."""
    t8, t32 = _t(shape, "i8"), _t(shape, "i32")
    lines += [
        f"    %{name}.a = tg.cast {a} : {t8} -> {t32}",
        f"    %{name}.b = tg.cast {b} : {t8} -> {t32}",
        f"    %{name}.s = tg.add %{name}.a, %{name}.b : ({t32}, {t32}) -> {t32}",
        f"    %{name}.r = tg.relu %{name}.s : {t32}",
        f"    %{name}.c = tg.clip %{name}.r {{min = -128 : i32, max = 127 : i32}} : {t32}",
        f"    %{name} = tg.cast %{name}.c : {t32} -> {t8}",
    ]
    return f"%{name}"


def resnet18(lines: list[str], weights: dict[str, np.ndarray], rng: np.random.Generator) -> tuple[str, tuple[int, ...]]:
    """ResNet-18 in int8: C1 and the head on the CPU, every other convolution on VTA."""
    v, shape = conv_chain("%x", (1, 3, 224, 224), "c1", 64, 7, 2, shift_for(3, 7), lines, weights, rng)
    pooled = (1, 64, 56, 56)
    lines.append(
        f"    %pool = tg.max_pool2d {v} {{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, "
        f"dilations = array<i64: 1, 1>, ceil_mode = false}} : ({_t(shape, 'i8')}) -> {_t(pooled, 'i8')}"
    )
    v, shape = "%pool", pooled
    for stage, width in enumerate((64, 128, 256, 512)):
        for block in range(2):
            stride = 2 if stage and not block else 1
            tag = f"l{stage + 1}b{block}"
            a, ashape = conv_chain(v, shape, f"{tag}c1", width, 3, stride, shift_for(shape[1], 3), lines, weights, rng)
            b, bshape = conv_chain(
                a, ashape, f"{tag}c2", width, 3, 1, shift_for(width, 3), lines, weights, rng, relu=False
            )
            skip = v
            if stride == 2:
                skip, _ = conv_chain(
                    v, shape, f"{tag}sc", width, 1, 2, shift_for(shape[1], 1), lines, weights, rng, relu=False
                )
            v, shape = residual_add(b, skip, bshape, f"{tag}out", lines), bshape
    # head: global sum pool (>> 6), then the 512 -> 1000 classifier (1000 is not a multiple of 16: CPU)
    t32 = _t(shape, "i32")
    weights["fc.w"] = rng.integers(-128, 128, (512, 1000), dtype=np.int8)
    weights["fc.b"] = rng.integers(-(1 << 12), 1 << 12, (1000,), dtype=np.int32)
    lines += [
        f"    %gi = tg.cast {v} : {_t(shape, 'i8')} -> {t32}",
        f"    %gs = tg.reduce_sum %gi {{axes = array<i64: 2, 3>, keepdims = false}} : {t32} -> {_t((1, 512), 'i32')}",
        f"    %gq = tg.shift_right %gs {{amount = 6 : i64}} : {_t((1, 512), 'i32')}",
        f"    %gc = tg.clip %gq {{min = -128 : i32, max = 127 : i32}} : {_t((1, 512), 'i32')}",
        f"    %fcw = tg.weight @fc.w : {_t((512, 1000), 'i8')}",
        f"    %fcb = tg.weight @fc.b : {_t((1000,), 'i32')}",
        f"    %fcwi = tg.cast %fcw : {_t((512, 1000), 'i8')} -> {_t((512, 1000), 'i32')}",
        f"    %g8 = tg.cast %gc : {_t((1, 512), 'i32')} -> {_t((1, 512), 'i8')}",
        f"    %g8i = tg.cast %g8 : {_t((1, 512), 'i8')} -> {_t((1, 512), 'i32')}",
        f"    %fc = tg.matmul %g8i, %fcwi : ({_t((1, 512), 'i32')}, {_t((512, 1000), 'i32')}) -> {_t((1, 1000), 'i32')}",
        f"    %fcs = tg.add %fc, %fcb : ({_t((1, 1000), 'i32')}, {_t((1000,), 'i32')}) -> {_t((1, 1000), 'i32')}",
        f"    %fcq = tg.shift_right %fcs {{amount = 10 : i64}} : {_t((1, 1000), 'i32')}",
        f"    %fcc = tg.clip %fcq {{min = -128 : i32, max = 127 : i32}} : {_t((1, 1000), 'i32')}",
        f"    %logits = tg.cast %fcc : {_t((1, 1000), 'i32')} -> {_t((1, 1000), 'i8')}",
    ]
    return "%logits", (1, 1000)


def layer_module(name: str, weights_file: str, rng: np.random.Generator) -> tuple[str, dict[str, np.ndarray]]:
    weights: dict[str, np.ndarray] = {}
    lines: list[str] = []
    if name == "resnet18":
        result, out_shape = resnet18(lines, weights, rng)
        args = _t((1, 3, 224, 224), "i8")
    elif name == "matmul":
        m, k, n = 64, 256, 128
        weights["mm.w"] = rng.integers(-128, 128, (k, n), dtype=np.int8)
        weights["mm.b"] = rng.integers(-(1 << 15), 1 << 15, (n,), dtype=np.int32)
        a32, o32 = _t((m, k), "i32"), _t((m, n), "i32")
        lines += [
            f"    %w = tg.weight @mm.w : {_t((k, n), 'i8')}",
            f"    %b = tg.weight @mm.b : {_t((n,), 'i32')}",
            f"    %ai = tg.cast %x : {_t((m, k), 'i8')} -> {a32}",
            f"    %wi = tg.cast %w : {_t((k, n), 'i8')} -> {_t((k, n), 'i32')}",
            f"    %p = tg.matmul %ai, %wi : ({a32}, {_t((k, n), 'i32')}) -> {o32}",
            f"    %pb = tg.add %p, %b : ({o32}, {_t((n,), 'i32')}) -> {o32}",
            f"    %s = tg.shift_right %pb {{amount = {shift_for(k, 1)} : i64}} : {o32}",
            f"    %l = tg.clip %s {{min = -128 : i32, max = 127 : i32}} : {o32}",
            f"    %y = tg.cast %l : {o32} -> {_t((m, n), 'i8')}",
        ]
        args, result, out_shape = _t((m, k), "i8"), "%y", (m, n)
    else:
        names = ["C1", "C2", "C3"] if name == "resnet" else [name]
        c, hw, *_ = RESNET18[names[0]]
        shape: tuple[int, ...] = (1, c, hw, hw)
        args = _t(shape, "i8")
        result = "%x"
        for layer in names:
            _, _, oc, k, s = RESNET18[layer]
            result, shape = conv_chain(
                result, shape, layer.lower(), oc, k, s, shift_for(shape[1], k), lines, weights, rng
            )
        out_shape = shape
    header = [
        f'builtin.module attributes {{tg.weights = "{weights_file}"}} {{',
        f'  func.func @main(%x: {args} {{tg.name = "x"}}) -> ({_t(out_shape, "i8")} {{tg.name = "y"}}) {{',
    ]
    footer = [f"    func.return {result} : {_t(out_shape, 'i8')}", "  }", "}", ""]
    return "\n".join(header + lines + footer), weights


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("layer", choices=[*RESNET18, "matmul", "resnet", "resnet18"])
    p.add_argument("-o", "--output", required=True, help="the .mlir file (weights go beside it)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    stem = args.output[: -len(".mlir")] if args.output.endswith(".mlir") else args.output
    weights_path = stem + ".weights.npz"
    text, weights = layer_module(args.layer, os.path.basename(weights_path), np.random.default_rng(args.seed))
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    np.savez(weights_path, **weights)
    with open(args.output, "w") as f:
        f.write(text)
    print(f"wrote {args.output} and {weights_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
