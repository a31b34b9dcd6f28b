"""The Porcupine kernel suite (PLDI'21), written with Tessel's Python builder.

Each kernel here produces exactly the spec function of `examples/he/<name>.mlir`
(`test/unit/he/test_builder.py` checks it), where the hand-written baseline and
Porcupine's published program sit beside the spec. Sizes follow Porcupine and HECO's
port: 64x64 images in one 4096-slot ciphertext, distances and dot product on short vectors,
regressions on a batch of 4096 samples.

    python examples/he/kernels.py box_blur      # print a kernel's spec IR
"""

from __future__ import annotations

import sys

from tessel.dialects.hev.builder import Kernel, image, kernel, vector

W = 64  # image width (and height)
BATCH = 4096


@kernel(slots=W * W)
def box_blur(x: image(W, W)):
    """2x2 box: the pixel, the one above, the one to the left, the one above-left."""
    return x + x.at(-1, 0) + x.at(0, -1) + x.at(-1, -1)


@kernel(slots=8, outputs=[0])
def dot_product(a: vector(), b: vector(public=True)):
    """sum_i a_i * b_i in slot 0; b is the server's plaintext."""
    return (a * b).sum()


@kernel(slots=4, outputs=[0])
def hamming_distance(a: vector(bits=True), b: vector(bits=True)):
    """The number of positions where two bit vectors differ (a xor b = a + b - 2ab)."""
    return (a + b - 2 * (a * b)).sum()


@kernel(slots=4, outputs=[0])
def l2_distance(a: vector(), b: vector()):
    """Squared Euclidean distance in slot 0."""
    d = a - b
    return (d * d).sum()


@kernel(slots=BATCH)
def linear_regression(a: vector(), b: vector(), x: vector(), y: vector()):
    """The residual y - (a*x + b) of every sample."""
    return y - (a * x + b)


@kernel(slots=BATCH)
def polynomial_regression(a: vector(), b: vector(), c: vector(), x: vector(), y: vector()):
    """The residual y - (a*x^2 + b*x + c) of every sample."""
    return y - (a * (x * x) + b * x + c)


@kernel(slots=W * W)
def sobel_gx(x: image(W, W)):
    """Horizontal Sobel gradient: [-1 0 1; -2 0 2; -1 0 1]."""
    return (x.at(-1, 1) - x.at(-1, -1)) + 2 * (x.at(0, 1) - x.at(0, -1)) + (x.at(1, 1) - x.at(1, -1))


@kernel(slots=W * W)
def sobel_gy(x: image(W, W)):
    """Vertical Sobel gradient: [-1 -2 -1; 0 0 0; 1 2 1]."""
    return (x.at(1, -1) - x.at(-1, -1)) + 2 * (x.at(1, 0) - x.at(-1, 0)) + (x.at(1, 1) - x.at(-1, 1))


@kernel(slots=W * W)
def roberts_cross(x: image(W, W)):
    """Squared Roberts cross gradient magnitude."""
    d1 = x.at(1, 1) - x
    d2 = x.at(1, 0) - x.at(0, 1)
    return d1 * d1 + d2 * d2


KERNELS: dict[str, Kernel] = {
    k.name: k
    for k in (
        box_blur,
        dot_product,
        hamming_distance,
        l2_distance,
        linear_regression,
        polynomial_regression,
        sobel_gx,
        sobel_gy,
        roberts_cross,
    )
}

if __name__ == "__main__":
    for name in sys.argv[1:] or KERNELS:
        sys.stdout.write(KERNELS[name].text())
