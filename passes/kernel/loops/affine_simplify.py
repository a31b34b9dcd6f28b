"""Affine index expressions simplified over a known domain: floordiv and mod taken apart
where the ranges of the dimensions decide them.

A reshape -> transpose -> reshape chain (attention's heads, ShuffleNet's channel shuffle)
composes into indices like `((d3 + d2 * 64 + d1 * 12608) floordiv 64) mod 197`: correct, but
the loop builder cannot see that the lanes of d3 are contiguous, so every lane is loaded on
its own after a chain of divisions. With d3 < 64, d2 < 197 and d1 < 6 the same index is `d2`.

The rule: write the dividend as a linear form `q * m + r` where q holds the terms whose
coefficients m divides; when the range of r lies within one multiple of m, [k*m, k*m + m),
then `floordiv m` is q + k and `mod m` is r - k*m. More generally, with g a divisor of m and
the dividend `g*q + r` where r lies within one multiple of g, `floordiv m` is
`(q + k) floordiv (m/g)` and `mod m` is `g * ((q + k) mod (m/g)) + r - k*g` (ShuffleNet's
channel shuffle divides `c*784 + h*28 + w` by 1568: `c floordiv 2`). Where nothing decides
it, the multiples of m still leave the division: `(q*m + r) floordiv m = q + r floordiv m`.
Terms that stay non-linear are atoms
with a range of their own (a mod's is [0, m)), so the rule applies through nested
expressions. Ranges come from `affine_analysis.affine_range`'s convention: inclusive bounds.
"""

from __future__ import annotations

import math

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from tessel.passes.kernel.loops.affine_analysis import Range, affine_range


class Linear:
    """sum(coefficient * atom) + constant; atoms are dims or non-linear sub-expressions."""

    def __init__(self, terms: dict[AffineExpr, int] | None = None, constant: int = 0):
        self.terms = {a: c for a, c in (terms or {}).items() if c}
        self.constant = constant

    def __add__(self, other: Linear) -> Linear:
        terms = dict(self.terms)
        for a, c in other.terms.items():
            terms[a] = terms.get(a, 0) + c
        return Linear(terms, self.constant + other.constant)

    def scaled(self, k: int) -> Linear:
        return Linear({a: c * k for a, c in self.terms.items()}, self.constant * k)

    def expr(self) -> AffineExpr:
        result: AffineExpr | None = None
        for atom, c in self.terms.items():
            term = atom if c == 1 else atom * c
            result = term if result is None else result + term
        if result is None:
            return AffineExpr.constant(self.constant)
        return result + self.constant if self.constant else result


def _range(lin: Linear, ranges: list[Range]) -> Range:
    lo = hi = lin.constant
    for atom, c in lin.terms.items():
        r = affine_range(atom, ranges)
        if r is None:
            return None
        lo, hi = lo + min(c * r[0], c * r[1]), hi + max(c * r[0], c * r[1])
    return lo, hi


def _linear(e: AffineExpr, ranges: list[Range]) -> Linear:
    if isinstance(e, AffineConstantExpr):
        return Linear(constant=e.value)
    if not isinstance(e, AffineBinaryOpExpr):
        r = affine_range(e, ranges) if isinstance(e, AffineDimExpr) else None
        return Linear(constant=r[0]) if r is not None and r[0] == r[1] else Linear({e: 1})
    lhs, rhs = _linear(e.lhs, ranges), _linear(e.rhs, ranges)
    kind = e.kind
    if kind is AffineBinaryOpKind.Add:
        return lhs + rhs
    if kind is AffineBinaryOpKind.Mul:
        if not rhs.terms:
            return lhs.scaled(rhs.constant)
        if not lhs.terms:
            return rhs.scaled(lhs.constant)
        return Linear({lhs.expr() * rhs.expr(): 1})
    if rhs.terms or rhs.constant <= 0:
        return Linear({AffineBinaryOpExpr(kind, lhs.expr(), rhs.expr()): 1})
    m = rhs.constant
    if m == 1:
        return lhs if kind is not AffineBinaryOpKind.Mod else Linear()
    for g in _block_sizes(lhs, m):
        split = _split(lhs, g, ranges)
        if split is None:
            continue
        q, low = split  # lhs = g*q + low with 0 <= low < g, and g divides m
        n = m // g
        match kind:
            case AffineBinaryOpKind.FloorDiv:
                return q if n == 1 else _linear(q.expr() // n, ranges)
            case AffineBinaryOpKind.Mod:
                return low if n == 1 else _linear(q.expr() % n, ranges).scaled(g) + low
            case AffineBinaryOpKind.CeilDiv if g == m and not low.terms and low.constant == 0:
                return q
    quotient = Linear({a: c // m for a, c in lhs.terms.items() if c % m == 0}, lhs.constant // m)
    rest = Linear({a: c for a, c in lhs.terms.items() if c % m}, lhs.constant % m)
    if not quotient.terms and not quotient.constant:
        return Linear({AffineBinaryOpExpr(kind, lhs.expr(), AffineExpr.constant(m)): 1})
    # (q*m + r) floordiv m = q + r floordiv m, ceildiv likewise, and (q*m + r) mod m = r mod m.
    atom = Linear({AffineBinaryOpExpr(kind, rest.expr(), AffineExpr.constant(m)): 1})
    return atom if kind is AffineBinaryOpKind.Mod else quotient + atom


def _block_sizes(lhs: Linear, m: int) -> list[int]:
    """The divisors of m worth trying as the block g of `lhs = g*q + low`: m itself, then
    each term's common factor with m, largest first (`(c*784 + r) floordiv 1568` with
    r < 784 is `c floordiv 2`)."""
    sizes = {m} | {math.gcd(c, m) for c in lhs.terms.values()}
    return sorted((g for g in sizes if g > 1), reverse=True)


def _split(lhs: Linear, g: int, ranges: list[Range]) -> tuple[Linear, Linear] | None:
    """(q, low) with lhs = g*q + low and 0 <= low < g on the domain, or None where the
    terms that g does not divide do not stay within one block."""
    rest = Linear({a: c for a, c in lhs.terms.items() if c % g}, lhs.constant % g)
    r = _range(rest, ranges)
    if r is None or r[0] // g != r[1] // g:
        return None
    k = r[0] // g
    q = Linear({a: c // g for a, c in lhs.terms.items() if c % g == 0}, lhs.constant // g + k)
    return q, rest + Linear(constant=-k * g)


def simplify_expr(e: AffineExpr, ranges: list[Range]) -> AffineExpr:
    """e with every floordiv / mod the dims' inclusive `ranges` decide taken apart."""
    return _linear(e, ranges).expr()


def simplify_map(m: AffineMap, ranges: list[Range]) -> AffineMap:
    """The map with each result simplified; `ranges` is indexed by dim (symbols: unknown)."""
    results = tuple(simplify_expr(r, ranges) for r in m.results)
    return AffineMap(m.num_dims, m.num_symbols, results)
