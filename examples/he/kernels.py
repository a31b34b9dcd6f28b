"""The Porcupine kernel suite (PLDI'21), and kernels of our own, written with Tessel's
Python builder.

Each kernel here produces exactly the spec function of `examples/he/<name>.mlir`
(`test/unit/he/test_he_builder.py` checks it), where the hand-written baseline (and, for
Porcupine's suite, Porcupine's published program) sit beside the spec. Sizes follow
Porcupine and HECO's port: 64x64 images in one 4096-slot ciphertext, distances and dot
product on short vectors, regressions on a batch of 4096 samples.

Our own kernels (not in Porcupine's suite) exercise what its examples do not: output masks
that cover part of the slots, zero-padded layouts, a 20-bit NTT-friendly plaintext modulus,
and 3x3 stencils whose best programs rotate far fewer times than they have taps.

    python examples/he/kernels.py box_blur      # print a kernel's spec IR
"""

from __future__ import annotations

import sys

from tessel.dialects.hev.builder import Kernel, image, kernel, vector

W = 64  # image width (and height)
BATCH = 4096
T20 = 786433  # a 20-bit NTT-friendly prime, 3 * 2^18 + 1: batching for every N up to 2^17
INTERIOR = [r * W + c for r in range(1, W - 1) for c in range(1, W - 1)]  # 62x62 pixels
BLOCK = [r * W + c for r in range(32) for c in range(32)]  # the top-left 32x32 pixels


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


@kernel(slots=W * W)
def gaussian_blur(x: image(W, W)):
    """3x3 Gaussian [1 2 1; 2 4 2; 1 2 1] (unnormalized): 8 taps to rotate to, but
    separable twice over, (1 + z^W)(1 + z^-W)(1 + z)(1 + z^-1): 4 rotations."""
    corners = x.at(-1, -1) + x.at(-1, 1) + x.at(1, -1) + x.at(1, 1)
    edges = x.at(-1, 0) + x.at(0, -1) + x.at(0, 1) + x.at(1, 0)
    return corners + 2 * edges + 4 * x


@kernel(slots=W * W, outputs=INTERIOR)
def box_blur_3x3(x: image(W, W)):
    """3x3 box sum at the 62x62 interior pixels only (the border wraps and is not wanted):
    (z^-W + 1 + z^W)(z^-1 + 1 + z), 4 rotations for 9 taps."""
    rows = x.at(-1, -1) + x.at(-1, 0) + x.at(-1, 1) + x.at(0, -1) + x + x.at(0, 1)
    return rows + x.at(1, -1) + x.at(1, 0) + x.at(1, 1)


@kernel(slots=64, outputs=[0])
def sum16_padded(x: vector(padded=(0, 16))):
    """The sum of 16 values into slot 0 of a 64-slot vector whose other 48 slots are zero
    padding: a 4-rotation log tree over the 16 (a full-vector sum needs 6)."""
    return x.sum()


@kernel(slots=BATCH)
def window_sum8(x: vector()):
    """Every slot gets the sum of itself and the 7 after it, written tap by tap:
    (1 + z)(1 + z^2)(1 + z^4), 3 rotations for 8 taps."""
    return x + x.shift(1) + x.shift(2) + x.shift(3) + x.shift(4) + x.shift(5) + x.shift(6) + x.shift(7)


@kernel(slots=16, outputs=[0], plain_modulus=T20)
def dot_product_t20(a: vector(), b: vector(public=True)):
    """Dot product of 16-vectors into slot 0, modulo the 20-bit prime 786433."""
    return (a * b).sum()


@kernel(slots=W * W, outputs=BLOCK, plain_modulus=T20)
def box_blur_padded_t20(x: image(W, W, padded=(0, 0, 32, 32))):
    """The 2x2 box blur of a 32x32 image stored zero-padded in a 64x64 frame, at its 32x32
    pixels, modulo 786433 (the blur reads the zero border where the image starts)."""
    return x + x.at(-1, 0) + x.at(0, -1) + x.at(-1, -1)


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
        gaussian_blur,
        box_blur_3x3,
        sum16_padded,
        window_sum8,
        dot_product_t20,
        box_blur_padded_t20,
    )
}

if __name__ == "__main__":
    for name in sys.argv[1:] or KERNELS:
        sys.stdout.write(KERNELS[name].text())
