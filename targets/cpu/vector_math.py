"""exp, log, tanh, erf, expm1 and log1p on float32 vectors, as LLVM IR the code generator
links in.

LLVM has no vector library on this path: `llvm.exp.v16f32` becomes sixteen calls to
`expf`, and tanh/erf are plain libm calls, so one GELU or sigmoid costs more than the
matmul it follows. These are branch-free polynomial versions (MLIR's math polynomial
approximations play the same role), used for scalars too so that a value does not depend
on whether its lane was vectorized:

- exp: Cephes' expf (range reduction by n = rint(x log2 e), degree-6 polynomial), with the
  scale 2^n applied as two halves so that overflow gives inf and underflow gives
  subnormals and zero exactly as the product rounds.
- log: Cephes' logf (frexp, degree-9 polynomial), subnormal inputs rescaled first.
- tanh: Cephes' tanhf (odd polynomial below 0.625, 1 - 2 / (exp(2|x|) + 1) above).
- erf: x P(x^2) below 1, and 1 - Q(|x| - 2.5)^4 from 1 to 4 (erf rounds to 1 beyond),
  where Q is erfc^(1/4) to a relative 7e-8 (degree 10). No divide and no exp: 31 AVX-512
  instructions where 1 - exp(-x^2) R(1/x) took 57 (a GELU's erf cost its matrix product
  15-25% more time). Q to the fourth keeps erfc's error relative, so erf stays
  monotone; erfc itself as a polynomial wobbled by an ulp near 1 (760 decreasing steps on a
  sweep). P and Q are least-squares fits made by `python -m tessel.targets.cpu.vector_math --fit`.
- expm1: its Taylor series to degree 8 below |x| = 1/2 (the omitted terms are under 1e-8
  of the value), exp(x) - 1 above, where the subtraction loses nothing.
- log1p: log(u) * x / (u - 1) with u = 1 + x rounded (Goldberg's exact correction of the
  rounding of u), x itself where u rounds to 1.

Special values follow IEEE (NaN in, NaN out; exp(-inf) = 0, log(0) = -inf, log(-1) = NaN).
test/unit/targets/test_vector_math.py measures the error against float64 over dense
sweeps: at most 1.3 ulps for exp and tanh, 0.9 for log, 2.3 for erf.
"""

from __future__ import annotations

import struct
import sys

import numpy as np

FUNCTIONS = ("exp", "log", "tanh", "erf", "expm1", "log1p")

# erf(x) / x = P(x^2) on [0, 1]; highest power first.
ERF_SMALL = (-5.6254939e-04, 4.9160481e-03, -2.6709972e-02, 1.1280131e-01, -3.7612319e-01, 1.1283791e00)
# erfc(x) = Q(x - ERF_CENTER)^4 on [1, ERF_END], Q fitted to relative error; highest power
# first. Past ERF_END, 1 - erfc rounds to 1 (erfc(4) = 1.5e-8, under half an ulp of 1).
ERF_CENTER, ERF_END = 2.5, 4.0
ERF_LARGE = (
    -1.6281219e-06,
    5.5415744e-06,
    2.8198194e-05,
    -1.8253596e-04,
    -8.0363016e-06,
    2.6420415e-03,
    -6.4851702e-03,
    -1.2259618e-02,
    9.3652576e-02,
    -1.9006287e-01,
    1.4203186e-01,
)


def _hex(value: float) -> str:
    """An LLVM float literal: the float32 value, widened to double, in hex (exact)."""
    return f"0x{struct.unpack('<Q', struct.pack('<d', float(np.float32(value))))[0]:016X}"


class _Body:
    """Straight-line IR over one type: `<n x float>` (n > 1) or `float`."""

    def __init__(self, n: int):
        self.n = n
        self.ft = f"<{n} x float>" if n > 1 else "float"
        self.it = f"<{n} x i32>" if n > 1 else "i32"
        self.bt = f"<{n} x i1>" if n > 1 else "i1"
        self.suffix = f"v{n}f32" if n > 1 else "f32"
        self.lines: list[str] = []
        self.count = 0

    def f(self, value: float) -> str:
        return f"splat (float {_hex(value)})" if self.n > 1 else _hex(value)

    def i(self, value: int) -> str:
        return f"splat (i32 {value})" if self.n > 1 else str(value)

    def emit(self, text: str) -> str:
        self.count += 1
        name = f"%t{self.count}"
        self.lines.append(f"  {name} = {text}")
        return name

    def bin(self, op: str, a: str, b: str, t: str | None = None) -> str:
        return self.emit(f"{op} {t or self.ft} {a}, {b}")

    def call(self, fn: str, *args: str) -> str:
        return self.emit(f"call {self.ft} @llvm.{fn}.{self.suffix}({', '.join(f'{self.ft} {a}' for a in args)})")

    def fma(self, a: str, b: str, c: str) -> str:
        return self.call("fma", a, b, c)

    def horner(self, coefficients: tuple[float, ...], z: str) -> str:
        p = self.f(coefficients[0])
        for c in coefficients[1:]:
            p = self.fma(p, z, self.f(c))
        return p

    def cmp(self, pred: str, a: str, b: str) -> str:
        return self.emit(f"fcmp {pred} {self.ft} {a}, {b}")

    def select(self, cond: str, a: str, b: str) -> str:
        return self.emit(f"select {self.bt} {cond}, {self.ft} {a}, {self.ft} {b}")

    def to_int(self, x: str) -> str:
        return self.emit(f"bitcast {self.ft} {x} to {self.it}")

    def to_float(self, x: str) -> str:
        return self.emit(f"bitcast {self.it} {x} to {self.ft}")


def _exp(b: _Body, x: str) -> str:
    xc = b.call("maxnum", b.call("minnum", x, b.f(88.8)), b.f(-104.0))
    n = b.call("rint", b.bin("fmul", xc, b.f(1.44269504088896341)))
    ln2_hi = float(np.float32(0.6931471805599453))
    r = b.fma(n, b.f(-ln2_hi), xc)
    r = b.fma(n, b.f(-(0.6931471805599453 - ln2_hi)), r)
    p = b.horner(
        (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1), r
    )
    rr = b.bin("fmul", r, r)
    y = b.fma(p, rr, b.bin("fadd", r, b.f(1.0)))
    k = b.emit(f"fptosi {b.ft} {n} to {b.it}")
    k1 = b.bin("ashr", k, b.i(1), b.it)
    k2 = b.bin("sub", k, k1, b.it)
    s1 = b.to_float(b.bin("shl", b.bin("add", k1, b.i(127), b.it), b.i(23), b.it))
    s2 = b.to_float(b.bin("shl", b.bin("add", k2, b.i(127), b.it), b.i(23), b.it))
    y = b.bin("fmul", b.bin("fmul", y, s1), s2)
    return b.select(b.cmp("uno", x, x), x, y)


def _log(b: _Body, x: str) -> str:
    tiny = b.cmp("olt", x, b.f(1.17549435e-38))
    xs = b.select(tiny, b.bin("fmul", x, b.f(8388608.0)), x)  # 2^23: subnormals become normal
    bits = b.to_int(xs)
    e = b.bin("sub", b.bin("lshr", bits, b.i(23), b.it), b.i(126), b.it)
    e = b.emit(f"select {b.bt} {tiny}, {b.it} {b.bin('sub', e, b.i(23), b.it)}, {b.it} {e}")
    m = b.to_float(b.bin("or", b.bin("and", bits, b.i(0x807FFFFF), b.it), b.i(0x3F000000), b.it))  # [0.5, 1)
    low = b.cmp("olt", m, b.f(0.707106781186547524))
    ef = b.emit(f"sitofp {b.it} {e} to {b.ft}")
    ef = b.select(low, b.bin("fsub", ef, b.f(1.0)), ef)
    m = b.select(low, b.bin("fadd", m, m), m)
    m = b.bin("fsub", m, b.f(1.0))
    z = b.bin("fmul", m, m)
    p = b.horner(
        (
            7.0376836292e-2,
            -1.1514610310e-1,
            1.1676998740e-1,
            -1.2420140846e-1,
            1.4249322787e-1,
            -1.6668057665e-1,
            2.0000714765e-1,
            -2.4999993993e-1,
            3.3333331174e-1,
        ),
        m,
    )
    y = b.bin("fmul", b.bin("fmul", p, m), z)
    y = b.fma(ef, b.f(-2.12194440e-4), y)
    y = b.fma(z, b.f(-0.5), y)
    y = b.bin("fadd", m, y)
    y = b.fma(ef, b.f(0.693359375), y)
    y = b.select(b.cmp("oeq", x, b.f(0.0)), b.f(float("-inf")), y)
    y = b.select(b.cmp("oeq", x, b.f(float("inf"))), x, y)
    return b.select(b.cmp("ult", x, b.f(0.0)), b.f(float("nan")), y)  # unordered: NaN in, NaN out


def _tanh(b: _Body, x: str) -> str:
    ax = b.call("fabs", x)
    z = b.bin("fmul", x, x)
    p = b.horner((-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1), z)
    small = b.call("copysign", b.fma(b.bin("fmul", p, z), x, x), x)  # keeps tanh(-0) = -0
    e = _exp(b, b.bin("fmul", ax, b.f(2.0)))
    large = b.bin("fsub", b.f(1.0), b.bin("fdiv", b.f(2.0), b.bin("fadd", e, b.f(1.0))))
    large = b.call("copysign", large, x)
    return b.select(b.cmp("olt", ax, b.f(0.625)), small, large)


def _erf(b: _Body, x: str) -> str:
    ax = b.call("fabs", x)
    small = b.bin("fmul", x, b.horner(ERF_SMALL, b.bin("fmul", x, x)))
    q = b.horner(ERF_LARGE, b.bin("fsub", b.call("minnum", ax, b.f(ERF_END)), b.f(ERF_CENTER)))
    q2 = b.bin("fmul", q, q)
    large = b.call("copysign", b.bin("fsub", b.f(1.0), b.bin("fmul", q2, q2)), x)
    y = b.select(b.cmp("olt", ax, b.f(1.0)), small, large)
    return b.select(b.cmp("uno", x, x), x, y)


def _expm1(b: _Body, x: str) -> str:
    # Taylor coefficients 1/2!, 1/3!, ..., 1/8!: expm1(x) = x + x^2 P(x)
    p = b.horner((1 / 40320, 1 / 5040, 1 / 720, 1 / 120, 1 / 24, 1 / 6, 1 / 2), x)
    small = b.call("copysign", b.fma(b.bin("fmul", x, x), p, x), x)  # keeps expm1(-0) = -0
    large = b.bin("fsub", _exp(b, x), b.f(1.0))
    return b.select(b.cmp("olt", b.call("fabs", x), b.f(0.5)), small, large)  # NaN: large is NaN


def _log1p(b: _Body, x: str) -> str:
    u = b.bin("fadd", x, b.f(1.0))
    corrected = b.bin("fmul", _log(b, u), b.bin("fdiv", x, b.bin("fsub", u, b.f(1.0))))
    y = b.select(b.cmp("oeq", u, b.f(1.0)), x, corrected)
    return b.select(b.cmp("oeq", u, b.f(float("inf"))), u, y)  # log1p(inf) = inf, not inf * 0


_BODIES = {"exp": _exp, "log": _log, "tanh": _tanh, "erf": _erf, "expm1": _expm1, "log1p": _log1p}


def function_name(name: str, n: int) -> str:
    return f"tessel.{name}.{f'v{n}f32' if n > 1 else 'f32'}"


def definition(name: str, n: int) -> str:
    """The LLVM IR of `name` on <n x float> (or float for n = 1), always inlined."""
    b = _Body(n)
    result = _BODIES[name](b, "%x")
    body = "\n".join(b.lines)
    return (
        f"define internal {b.ft} @{function_name(name, n)}({b.ft} %x) alwaysinline nounwind {{\n"
        f"{body}\n  ret {b.ft} {result}\n}}"
    )


# --------------------------------------------------------------------------- fitting


def fit(grid: int = 4000, rounds: int = 30) -> dict[str, tuple[float, ...]]:
    """Refit the erf polynomials: weighted least squares on Chebyshev nodes, reweighted
    towards minimax relative error, rounded to float32."""
    from scipy import special

    def chebyshev(lo: float, hi: float) -> np.ndarray:
        return np.cos(np.pi * (np.arange(grid) + 0.5) / grid) * (hi - lo) / 2 + (hi + lo) / 2

    def solve(t: np.ndarray, y: np.ndarray, degree: int) -> tuple[float, ...]:
        v = np.vander(t, degree + 1)
        w = 1 / np.abs(y)
        c, *_ = np.linalg.lstsq(v * w[:, None], y * w, rcond=None)
        for _ in range(rounds):
            r = np.abs((v @ c - y) * w)
            w2 = w * np.sqrt(r / r.max() + 1e-3)
            c, *_ = np.linalg.lstsq(v * w2[:, None], y * w2, rcond=None)
        return tuple(float(np.float32(a)) for a in c)

    z = chebyshev(1e-8, 1.0)
    x = chebyshev(1.0, ERF_END)
    return {
        "ERF_SMALL": solve(z, special.erf(np.sqrt(z)) / np.sqrt(z), len(ERF_SMALL) - 1),
        "ERF_LARGE": solve(x - ERF_CENTER, special.erfc(x) ** 0.25, len(ERF_LARGE) - 1),
    }


if __name__ == "__main__":
    if sys.argv[1:] != ["--fit"]:
        print("usage: python -m tessel.targets.cpu.vector_math --fit", file=sys.stderr)
        sys.exit(2)
    for key, values in fit().items():
        print(f"{key} = ({', '.join(f'{v:.7e}' for v in values)})")
