"""An int8 layer as VTA runs it: conv2d (or a matmul seen as a 1x1 conv) with an int32 bias,
an arithmetic requantizing shift, an optional ReLU and a clip, narrowed to int8.

This is the unit `tg-to-vta` recognises in a `tg` graph (cast i8->i32, conv2d/matmul, relu,
shift_right, clip, cast i32->i8), what a `vta.conv2d` describes, the unit the code generator
tiles, and the unit whose numpy reference (`reference.conv2d`) every VTA result is compared
against bit for bit. The packed layouts
are VTA's: activations (C/16, H, W, 16), weights (OC/16, IC/16, kh, kw, 16 out, 16 in),
bias (OC/16, 16) int32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


@dataclass(frozen=True)
class Conv2dLayer:
    """One image (batch 1), NCHW; `pads` are (top, left, bottom, right)."""

    name: str
    in_channels: int
    height: int
    width: int
    out_channels: int
    kernel: tuple[int, int]
    stride: int = 1
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)
    bias: bool = True
    shift: int = 0
    relu: bool = False
    clip: tuple[int, int] = (INT32_MIN, INT32_MAX)

    @property
    def out_height(self) -> int:
        return (self.height + self.pads[0] + self.pads[2] - self.kernel[0]) // self.stride + 1

    @property
    def out_width(self) -> int:
        return (self.width + self.pads[1] + self.pads[3] - self.kernel[1]) // self.stride + 1

    @property
    def macs(self) -> int:
        return self.out_channels * self.out_height * self.out_width * self.in_channels * self.kernel[0] * self.kernel[1]

    def intensity(self) -> float:
        """Ops per byte of compulsory DRAM traffic (each input, weight, bias and output once):
        the layer's position on a roofline, whatever program runs it."""
        kh, kw = self.kernel
        moved = (
            self.in_channels * self.height * self.width
            + self.out_channels * self.in_channels * kh * kw
            + self.out_channels * self.out_height * self.out_width
            + 4 * self.out_channels * self.bias
        )
        return 2 * self.macs / moved

    def lower_bound(self) -> int:
        """The value MAX clamps to: ReLU and the clip's lower bound combined."""
        return max(self.clip[0], 0) if self.relu else self.clip[0]

    def why_not_vta(self, block: int = 16) -> str | None:
        """None when VTA can run the layer, else the reason it stays on the CPU."""
        if self.in_channels % block:
            return f"{self.in_channels} input channels are not a multiple of {block}"
        if self.out_channels % block:
            return f"{self.out_channels} output channels are not a multiple of {block}"
        if max(self.pads) > 15:
            return f"padding {max(self.pads)} exceeds the 4-bit pad fields"
        if not 0 <= self.shift < 16:
            return f"shift {self.shift} does not fit the ALU's 5-bit signed shift amount (0..15)"
        lo, hi = self.lower_bound(), self.clip[1]
        for v in (lo, hi):
            if v not in (INT32_MIN, INT32_MAX) and not -(1 << 15) <= v < (1 << 15):
                return f"clip bound {v} does not fit the ALU's 16-bit immediate"
        return None


def pack_input(x: np.ndarray, block: int = 16) -> np.ndarray:
    """(1, C, H, W) -> (C/16, H, W, 16)."""
    _, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(c // block, block, h, w).transpose(0, 2, 3, 1))


def pack_weight(w: np.ndarray, block: int = 16) -> np.ndarray:
    """(OC, IC, kh, kw) -> (OC/16, IC/16, kh, kw, 16 out, 16 in)."""
    oc, ic, kh, kw = w.shape
    return np.ascontiguousarray(w.reshape(oc // block, block, ic // block, block, kh, kw).transpose(0, 2, 4, 5, 1, 3))


def pack_bias(b: np.ndarray, block: int = 16) -> np.ndarray:
    return np.ascontiguousarray(b.reshape(-1, block))


def unpack_output(y: np.ndarray) -> np.ndarray:
    """(OC/16, OH, OW, 16) -> (1, OC, OH, OW)."""
    ob, oh, ow, block = y.shape
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2).reshape(1, ob * block, oh, ow))


# ResNet-18's convolutions as the TVM paper's Table 2 names them (C1 stays on the CPU: 3 channels).
RESNET18 = {
    "C1": (3, 224, 64, 7, 2),
    "C2": (64, 56, 64, 3, 1),
    "C3": (64, 56, 64, 1, 1),
    "C4": (64, 56, 128, 3, 2),
    "C5": (64, 56, 128, 1, 2),
    "C6": (128, 28, 128, 3, 1),
    "C7": (128, 28, 256, 3, 2),
    "C8": (128, 28, 256, 1, 2),
    "C9": (256, 14, 256, 3, 1),
    "C10": (256, 14, 512, 3, 2),
    "C11": (256, 14, 512, 1, 2),
    "C12": (512, 7, 512, 3, 1),
}


def resnet_layer(name: str, shift: int = 8, relu: bool = True) -> Conv2dLayer:
    c, hw, oc, k, s = RESNET18[name]
    p = k // 2
    return Conv2dLayer(name, c, hw, hw, oc, (k, k), s, (p, p, p, p), True, shift, relu, (-128, 127))


def matmul_layer(name: str, m: int, k: int, n: int, shift: int = 8, relu: bool = False) -> Conv2dLayer:
    """(M, K) x (K, N) as a 1x1 convolution over a 1 x M image with K channels."""
    return Conv2dLayer(name, k, 1, m, n, (1, 1), 1, (0, 0, 0, 0), True, shift, relu, (-128, 127))


def random_operands(layer: Conv2dLayer, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (1, layer.in_channels, layer.height, layer.width), dtype=np.int8)
    w = rng.integers(-128, 128, (layer.out_channels, layer.in_channels, *layer.kernel), dtype=np.int8)
    b = rng.integers(-(1 << 16), 1 << 16, (layer.out_channels,), dtype=np.int32) if layer.bias else None
    return x, w, b
