"""The Python builder: each kernel of examples/he/kernels.py is exactly the spec function of
its .mlir file, its reference semantics is the formula it states, and misuse is reported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tessel.dialects.context import make_context
from tessel.dialects.hev import kernel
from tessel.dialects.hev.builder import image, vector
from tessel.dialects.hev.builder import kernel as spec_kernel
from tessel.ir.source import parse_module, print_module, read_module

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "he"
T = 65537


def test_every_example_kernel_is_built(kernels):
    assert sorted(kernels) == sorted(p.stem for p in EXAMPLES.glob("*.mlir"))


@pytest.mark.parametrize("name", sorted(p.stem for p in EXAMPLES.glob("*.mlir")))
def test_builder_produces_the_ir_of_the_example(kernels, name):
    module = read_module(make_context(), str(EXAMPLES / f"{name}.mlir"))
    spec = kernel.lookup(module, name)
    built = kernels[name].function()
    assert spec.is_structurally_equivalent(built)
    # and the built IR is valid text that parses back to the same function
    again = parse_module(make_context(), print_module(kernels[name].module()))
    assert again.ops.first.is_structurally_equivalent(built)


def test_semantics_are_the_formulas(kernels):
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, 4096)
    x2 = img.reshape(64, 64)

    def at(dy, dx):  # pixel (i+dy, j+dx), wrapping around the flat index
        return np.roll(img, -(dy * 64 + dx))

    assert np.array_equal(kernels["box_blur"](img), (img + at(-1, 0) + at(0, -1) + at(-1, -1)) % T)
    gx = at(-1, 1) - at(-1, -1) + 2 * (at(0, 1) - at(0, -1)) + at(1, 1) - at(1, -1)
    assert np.array_equal(kernels["sobel_gx"](img), gx % T)
    inner = (slice(1, 63), slice(1, 63))  # away from the wrap-around, a true 2-D convolution
    k = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
    conv = sum(k[dy + 1, dx + 1] * np.roll(x2, (-dy, -dx), axis=(0, 1)) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    assert np.array_equal((kernels["sobel_gx"](img).reshape(64, 64))[inner], conv[inner] % T)
    a, b = rng.integers(0, 2, 4), rng.integers(0, 2, 4)
    assert kernels["hamming_distance"](a, b)[0] == np.sum(a != b)
    u, v = rng.integers(0, 100, 8), rng.integers(0, 100, 8)
    assert kernels["dot_product"](u, v)[0] == int(u @ v) % T
    a, b, c, x, y = (rng.integers(0, 50, 4096) for _ in range(5))
    assert np.array_equal(kernels["polynomial_regression"](a, b, c, x, y), (y - (a * x * x + b * x + c)) % T)


def test_constants_are_shared_and_reduced():
    @spec_kernel(slots=4, plain_modulus=786433)
    def f(x: vector()):
        return 2 * x + x * 2 - 786435

    fn = f.function()
    consts = [op for op in fn.body.walk() if op.name == "hev.spec.const"]
    assert [c.value.value.data for c in consts] == [2, 786435]
    assert list(f(np.array([1, 2, 3, 4]))) == [(4 * v - 786435) % 786433 for v in (1, 2, 3, 4)]


def test_misuse_is_reported():
    with pytest.raises(TypeError, match="annotate argument 'x' with vector"):

        @spec_kernel(slots=4)
        def bare(x):
            return x

    @spec_kernel(slots=4)
    def not_image(x: vector()):
        return x.at(0, 1)

    with pytest.raises(TypeError, match=r"at\(dy, dx\) needs a value computed from an image"):
        not_image.function()

    @spec_kernel(slots=4)
    def floats(x: vector()):
        return x * 0.5

    with pytest.raises(TypeError, match="combines vectors and integers, not float"):
        floats.function()

    @spec_kernel(slots=16)
    def returns_int(x: image(4, 4)):
        return 3

    with pytest.raises(TypeError, match="must return a vector"):
        returns_int.function()
