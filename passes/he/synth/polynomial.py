"""Exact slot semantics: every slot of a straight-line add/sub/mul/rotate program is a
polynomial over the input slots, and two such programs agree on all inputs mod a prime t
exactly when their polynomials are equal coefficient by coefficient (each variable's degree
stays far below t). This is the final, exact check of a synthesized kernel at the real
plaintext modulus (z3's bit-vector checks run at a small width and prove nothing mod t).

Variables are `(input index, slot)`. Inputs declared boolean (`hev.domain = "bits"`) obey
x*x = x, so their monomials are kept multilinear: on {0, 1} inputs that is exact too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

Var = tuple[int, int]  # (input index, slot)
Monomial = tuple[tuple[Var, int], ...]  # sorted (variable, exponent) pairs


@dataclass(frozen=True)
class Poly:
    """A polynomial with coefficients in Z_m: monomial -> non-zero coefficient."""

    terms: tuple[tuple[Monomial, int], ...]

    def as_dict(self) -> dict[Monomial, int]:
        return dict(self.terms)

    def variables(self) -> set[Var]:
        return {v for mono, _ in self.terms for v, _ in mono}

    def degree(self, which: Iterable[int] | None = None) -> int:
        """Total degree, counting only variables of the given inputs when `which` is set."""
        keep = None if which is None else set(which)
        best = 0
        for mono, _ in self.terms:
            best = max(best, sum(e for (i, _), e in mono if keep is None or i in keep))
        return best

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for mono, c in self.terms:
            factors = [f"x{i}[{s}]" + (f"^{e}" if e > 1 else "") for (i, s), e in mono]
            parts.append("*".join(([str(c)] if c != 1 or not factors else []) + factors))
        return " + ".join(parts)


class PolyDomain:
    """Slot values as polynomials mod `modulus`; boolean inputs are kept multilinear."""

    def __init__(
        self, modulus: int, boolean_inputs: Iterable[int] = (), zero: Callable[[int, int], bool] | None = None
    ):
        self.modulus = modulus
        self.boolean = frozenset(boolean_inputs)
        self.zero = zero  # (input, slot) -> True where a zero-padded layout holds 0

    def _make(self, d: dict[Monomial, int]) -> Poly:
        return Poly(tuple(sorted((m, c) for m, c in d.items() if c % self.modulus)))

    def var(self, input: int, slot: int) -> Poly:
        if self.zero is not None and self.zero(input, slot):
            return Poly(())
        mono: Monomial = (((input, slot), 1),)
        return Poly(((mono, 1),))

    def const(self, value: int) -> Poly:
        value %= self.modulus
        return Poly((((), value),)) if value else Poly(())

    def add(self, a: Poly, b: Poly) -> Poly:
        d = a.as_dict()
        for m, c in b.terms:
            d[m] = (d.get(m, 0) + c) % self.modulus
        return self._make(d)

    def neg(self, a: Poly) -> Poly:
        return Poly(tuple((m, (-c) % self.modulus) for m, c in a.terms))

    def sub(self, a: Poly, b: Poly) -> Poly:
        return self.add(a, self.neg(b))

    def mul(self, a: Poly, b: Poly) -> Poly:
        d: dict[Monomial, int] = {}
        for ma, ca in a.terms:
            for mb, cb in b.terms:
                m = self._mono_mul(ma, mb)
                d[m] = (d.get(m, 0) + ca * cb) % self.modulus
        return self._make(d)

    def _mono_mul(self, a: Monomial, b: Monomial) -> Monomial:
        exps = dict(a)
        for v, e in b:
            exps[v] = exps.get(v, 0) + e
        return tuple(sorted((v, 1 if v[0] in self.boolean else e) for v, e in exps.items()))
