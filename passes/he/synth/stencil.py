"""Rotate-and-add programs for linear stencils, by factoring the stencil.

A linear map of one input, out[p] = sum_o c_o * x[p + o], is a Laurent polynomial
G(z) = sum_o c_o z^o in the rotation z (offsets as the flat slot index: on an H x W image
z^W is a row). A program that rotates a value v by r and adds it back computes
(1 + z^r) * v: a chain of such *steps* multiplies their polynomials, and every step rotates
the partial result built so far, so each rotation serves all the taps behind it. That is
how the structured programs arise:

    separable stencils   Sobel Gx = (1 + z^W)(1 + z^-W)(z - z^-1)      4 rotations, not 6
                         Gaussian = (1 + z^W)(1 + z^-W)(1 + z)(1 + z^-1)  4, not 8
    log-tree reductions  sum of 16 taps = (1 + z)(1 + z^2)(1 + z^4)(1 + z^8)  4, not 15
    3x3 box              (z^-W + 1 + z^W)(z^-1 + 1 + z)                 4, not 8

`plans` searches factorizations exactly: steps are binomials 1 +- z^r and the symmetric or
doubling trinomials of the sketch's amounts, each dividing what is left (polynomial division
over Z_t); what is left at the end is taken directly (one rotation per tap) when its taps
share one coefficient up to sign. Iterative deepening on the rotation count from
ceil(log2(taps)), the least any program needs, so the first plans found use the fewest
rotations a factorization can.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

Laurent = dict[int, int]  # offset -> non-zero coefficient mod t

NODE_LIMIT = 50_000


@dataclass(frozen=True)
class Step:
    """v -> sum of sign * rot(v, offset) over the terms (offset 0: v itself)."""

    terms: tuple[tuple[int, int], ...]  # (offset, +1 or -1), the first term positive

    @property
    def rotations(self) -> int:
        return sum(1 for o, _ in self.terms if o)

    @property
    def additions(self) -> int:
        return len(self.terms) - 1


@dataclass(frozen=True)
class Plan:
    """G = scalar * product of the steps' polynomials (the last step may have no offset-0 term)."""

    steps: tuple[Step, ...]
    scalar: int  # mod t

    @property
    def rotations(self) -> int:
        return sum(s.rotations for s in self.steps)

    @property
    def additions(self) -> int:
        return sum(s.additions for s in self.steps)


def multiply(a: Laurent, b: Laurent, t: int) -> Laurent:
    out: Laurent = {}
    for i, x in a.items():
        for j, y in b.items():
            out[i + j] = (out.get(i + j, 0) + x * y) % t
    return {k: v for k, v in out.items() if v}


def divide(g: Laurent, f: Laurent, t: int) -> Laurent | None:
    """g / f when f divides g exactly in Z_t[z, 1/z], else None (long division; t prime)."""
    glo, flo = min(g), min(f)
    G = [0] * (max(g) - glo + 1)
    for o, c in g.items():
        G[o - glo] = c % t
    F = [0] * (max(f) - flo + 1)
    for o, c in f.items():
        F[o - flo] = c % t
    if len(F) > len(G):
        return None
    inv = pow(F[-1], -1, t)
    Q = [0] * (len(G) - len(F) + 1)
    for i in range(len(Q) - 1, -1, -1):
        q = G[i + len(F) - 1] * inv % t
        if q:
            Q[i] = q
            for j, c in enumerate(F):
                if c:
                    G[i + j] = (G[i + j] - q * c) % t
    if any(G):
        return None
    return {i + glo - flo: c for i, c in enumerate(Q) if c}


def _as_step(h: Laurent, t: int) -> tuple[Step, int] | None:
    """h = scalar * step, when its taps share one coefficient up to sign."""
    coefs = {c for c in h.values()}
    scale = next(iter(sorted(coefs)))
    if not all(c in (scale, (-scale) % t) for c in coefs):
        return None
    terms = sorted(((o, 1 if c == scale else -1) for o, c in h.items()), key=lambda x: (-x[1], x[0] != 0, abs(x[0])))
    if terms[0][1] < 0:  # all negative: pull the sign into the scalar
        terms = [(o, -s) for o, s in terms]
        scale = (-scale) % t
    return Step(tuple(terms)), scale


def candidate_steps(amounts: Sequence[int]) -> list[Step]:
    """Binomials 1 +- z^r, and the trinomials z^-r + 1 + z^r and 1 + z^r + z^2r (with signs)."""
    steps: list[Step] = []
    amounts = sorted(set(amounts) - {0}, key=lambda r: (abs(r), -r))
    have = set(amounts)
    for r in amounts:
        for s in (1, -1):
            steps.append(Step(((0, 1), (r, s))))
    for r in amounts:
        for s1 in (1, -1):
            for s2 in (1, -1):
                if r > 0 and -r in have:
                    steps.append(Step(((0, 1), (-r, s1), (r, s2))))
                if 2 * r in have:
                    steps.append(Step(((0, 1), (r, s1), (2 * r, s2))))
    return steps


def plans(g: Laurent, amounts: Sequence[int], t: int, deadline: float | None = None, slack: int = 1) -> list[Plan]:
    """Factorizations of the stencil g with the fewest rotations found (and up to `slack`
    more), cheapest first by rotations then additions. The direct form (one rotation per
    tap) is always among them when its taps share a coefficient up to sign."""
    g = {o: c % t for o, c in g.items() if c % t}
    if not g:
        return []
    steps = candidate_steps(amounts)
    polys = {s: {o: sgn % t for o, sgn in s.terms} for s in steps}
    found: list[Plan] = []
    nodes = 0
    direct = _as_step(g, t)
    most = direct[0].rotations if direct is not None else len(g)
    least = max(0, (len(g) - 1).bit_length())

    def search(h: Laurent, start: int, chosen: tuple[Step, ...], budget: int) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > NODE_LIMIT or (deadline is not None and nodes % 256 == 0 and time.monotonic() > deadline):
            return
        last = _as_step(h, t)
        if last is not None and last[0].rotations <= budget:
            tail = (last[0],) if len(last[0].terms) > 1 or last[0].terms[0][0] else ()
            found.append(Plan(chosen + tail, last[1]))
        if budget <= 0 or len(h) <= 1:
            return
        for j in range(start, len(steps)):
            step = steps[j]
            if step.rotations > budget:
                continue
            rest = divide(h, polys[step], t)
            if rest is None or max(0, (len(rest) - 1).bit_length()) > budget - step.rotations:
                continue
            search(rest, j, chosen + (step,), budget - step.rotations)

    k = least
    while k <= most and not found:
        search(g, 0, (), k)
        k += 1
    if found and slack:
        best = min(p.rotations for p in found)
        extra = min(most, best + slack)
        if extra > best:
            found.clear()
            search(g, 0, (), extra)
    unique = {(p.steps, p.scalar): p for p in found}
    return sorted(unique.values(), key=lambda p: (p.rotations, p.additions))
