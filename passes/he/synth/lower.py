"""Structured programs straight from the spec: the synthesizer's first upper bounds.

The spec is lowered node by node into the component model (`program.py`), with the
structure a solver would have to rediscover given to it directly:

- a *linear stencil* of one secret input (shifts, additions, subtractions, negations and
  constant factors of that input: Sobel, Gaussian, box filters, windowed sums written as
  shifts) becomes the cheapest factored rotate-and-add chain `stencil.plans` finds:
  separable stencils, log trees, partial sums rotated again;
- a *full-vector sum* becomes a rotate-and-add log tree; when the zero-padded layout
  leaves only a window of slots non-zero, also a log tree over that window alone;
- shifts fold into the rotation of the operand that reads them; additions, products and
  negations map to their BFV operations (public operands to the plaintext forms, small
  constant factors to additions); relinearizations go where a product must be size 2;
- on inputs of the bits domain (x * x = x) a quadratic value that is a completed square,
  c * L^2 plus a linear rest, is computed as one square: a + b - 2ab is (a - b)^2;
- a polynomial output (no sums) is also evaluated by a multivariate Horner scheme, the
  variable in most products factored out first: y - (a x^2 + b x + c) is
  (y - c) - (a x + b) x, two products where the spec writes three.

Each variant is one candidate; the caller verifies them exactly and keeps the cheapest,
which bounds the solver's search from above.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from tessel.dialects.hev.metrics import normalize_rotation
from tessel.passes.he.synth import program as P
from tessel.passes.he.synth.program import Component, Operand, PlainSource, Program
from tessel.passes.he.synth.spec import ADD, CONST, INPUT, MUL, NEG, SHIFT, SUB, SUM, Spec
from tessel.passes.he.synth.stencil import Laurent, Plan, plans


@dataclass(frozen=True)
class Value:
    """A lowered value: a source (secret input or component) read at a rotation."""

    source: int
    rotation: int = 0


def linear_form(
    spec: Spec, node: int, memo: dict[int, dict[tuple[int, int], int] | None]
) -> dict[tuple[int, int], int] | None:
    """node = sum of c * input_i[p + o] over {(i, o): c} (mod t), or None when it is not a
    linear map of the secret inputs (a product of secrets, a public operand, a sum, ...)."""
    if node in memo:
        return memo[node]
    n, t = spec.nodes[node], spec.plain_modulus
    out: dict[tuple[int, int], int] | None = None
    if n.kind == INPUT and spec.inputs[n.value].secret:
        out = {(n.value, 0): 1}
    elif n.kind == SHIFT:
        a = linear_form(spec, n.args[0], memo)
        if a is not None:
            out = {(i, normalize_rotation(o + n.value, spec.slots)): c for (i, o), c in a.items()}
    elif n.kind in (ADD, SUB):
        a, b = (linear_form(spec, x, memo) for x in n.args)
        if a is not None and b is not None:
            sign = 1 if n.kind == ADD else -1
            out = dict(a)
            for k, c in b.items():
                out[k] = (out.get(k, 0) + sign * c) % t
            out = {k: c for k, c in out.items() if c}
    elif n.kind == NEG:
        a = linear_form(spec, n.args[0], memo)
        out = None if a is None else {k: (-c) % t for k, c in a.items()}
    elif n.kind == MUL:
        x, y = n.args
        for lin, const in ((x, y), (y, x)):
            if spec.nodes[const].kind == CONST:
                a = linear_form(spec, lin, memo)
                if a is not None:
                    c = spec.nodes[const].value % t
                    out = {k: v * c % t for k, v in a.items() if v * c % t}
                break
    memo[node] = out
    return out


class Lowering:
    """One lowering of the spec; `window` picks the windowed log tree for sums."""

    def __init__(
        self,
        spec: Spec,
        units: dict[str, int],
        amounts: Sequence[int],
        window: bool,
        deadline: float,
        squares: bool = False,
        horner: bool = False,
    ):
        self.spec, self.units, self.window, self.deadline, self.squares = spec, units, window, deadline, squares
        self.use_horner = horner
        self.amounts = list(amounts)
        self.first = len(spec.secret_inputs)
        self.components: list[Component] = []
        self.plain_sources: list[PlainSource] = []
        self.memo: dict[int, Value] = {}
        self.linear: dict[int, dict[tuple[int, int], int] | None] = {}

    # ------------------------------------------------------------------ building blocks

    def emit(self, op: str, a: Value, b: Value | None = None, plain: int | None = None) -> Value:
        self.components.append(
            Component(op, Operand(a.source, a.rotation), None if b is None else Operand(b.source, b.rotation), plain)
        )
        return Value(self.first + len(self.components) - 1)

    def plain(self, source: PlainSource) -> int:
        if source not in self.plain_sources:
            self.plain_sources.append(source)
        return self.plain_sources.index(source)

    def public(self, node: int) -> PlainSource:
        n = self.spec.nodes[node]
        if n.kind == INPUT:
            return PlainSource("input", n.value)
        assert n.kind == CONST, "public values are leaves (the spec reader checks it)"
        return PlainSource("const", n.value % self.spec.plain_modulus)

    def rotate(self, v: Value, amount: int) -> Value:
        return Value(v.source, normalize_rotation(v.rotation + amount, self.spec.slots))

    def scale(self, v: Value, c: int) -> Value:
        """c * v, by additions when that is cheaper than a plaintext multiplication."""
        t = self.spec.plain_modulus
        c %= t
        if c == 1:
            return v
        negative = c > t // 2
        m = t - c if negative else c
        adds = m.bit_length() - 1 + bin(m).count("1") - 1  # double-and-add
        via_adds = adds * self.units["add"] + (self.units["negate"] if negative else 0)
        if via_adds >= self.units["multiply_plain"]:
            return self.emit(P.MUL_PLAIN, v, plain=self.plain(PlainSource("const", c)))
        out = v
        for bit in bin(m)[3:]:
            out = self.emit(P.ADD, out, out)
            if bit == "1":
                out = self.emit(P.ADD, out, v)
        return self.emit(P.NEGATE, out) if negative else out

    # ------------------------------------------------------------------ stencils and sums

    def stencil(self, source: Value, g: Laurent) -> Value:
        """The cheapest plan for the stencil g applied to `source`."""
        options = plans(g, self.amounts, self.spec.plain_modulus, self.deadline)
        if not options:
            return self.direct(source, g)
        best = min(options, key=self.plan_cost)
        return self.apply(source, best)

    def plan_cost(self, plan: Plan) -> int:
        u, t = self.units, self.spec.plain_modulus
        scalar = 0 if plan.scalar % t == 1 else u["multiply_plain"]
        return plan.rotations * u["rotate"] + plan.additions * u["add"] + scalar

    def apply(self, v: Value, plan: Plan) -> Value:
        for step in plan.steps:
            (o0, _), rest = step.terms[0], step.terms[1:]
            acc = self.rotate(v, o0)
            for o, s in rest:
                acc = self.emit(P.ADD if s > 0 else P.SUB, acc, self.rotate(v, o))
            v = acc
        return self.scale(v, plan.scalar)

    def direct(self, source: Value, g: Laurent) -> Value:
        """sum of c * rot(source, o), one rotation per tap (coefficients by `scale`)."""
        acc: Value | None = None
        for o, c in sorted(g.items(), key=lambda x: (x[0] != 0, abs(x[0]))):
            term = self.scale(self.rotate(source, o), c)
            acc = term if acc is None else self.emit(P.ADD, acc, term)
        assert acc is not None
        return acc

    def reduction(self, node: int) -> Value:
        """sum over all slots of the node's value: a log tree, or over its non-zero window."""
        n = self.spec.slots
        v = self.lower(self.spec.nodes[node].args[0])
        v = Value(v.source)  # a sum does not see a rotation of its operand
        span, shift = n, 0
        if self.window:
            window = self.spec.nonzero_window(self.spec.nodes[node].args[0])
            if window is not None:
                lo, size = window
                span, shift = 1 << max(0, (size - 1).bit_length()), lo
        step = 1
        while step < span:
            v = self.emit(P.ADD, v, Value(v.source, step))
            step *= 2
        return self.rotate(v, shift) if shift else v

    # ------------------------------------------------------------------ nodes

    def lower(self, node: int) -> Value:
        if node in self.memo:
            return self.memo[node]
        if time.monotonic() > self.deadline:
            raise TimeoutError
        spec, n = self.spec, self.spec.nodes[node]
        lin = linear_form(spec, node, self.linear)
        if lin is not None and len({i for i, _ in lin}) == 1 and len(lin) > 1:
            (i,) = {i for i, _ in lin}
            out = self.stencil(Value(spec.secret_inputs.index(i)), {o: c for (_, o), c in lin.items()})
        elif n.kind == INPUT:
            out = Value(spec.secret_inputs.index(n.value))
        elif self.squares and n.kind in (ADD, SUB, MUL, NEG) and (square := self.completed_square(node)) is not None:
            out = square
        elif n.kind == SHIFT:
            out = self.rotate(self.lower(n.args[0]), n.value)
        elif n.kind == NEG:
            out = self.emit(P.NEGATE, self.lower(n.args[0]))
        elif n.kind == SUM:
            out = self.reduction(node)
        else:
            out = self.binary(node)
        self.memo[node] = out
        return out

    def variable(self, var: tuple[int, int]) -> Value:
        """An input slot read at slot 0, as a rotated input."""
        i, slot = var
        return Value(self.spec.secret_inputs.index(i), normalize_rotation(slot, self.spec.slots))

    def combination(self, coefs: dict[tuple[int, int], int]) -> Value:
        """sum of c * variable, by additions and subtractions (other factors by `scale`)."""
        t, acc = self.spec.plain_modulus, None
        for var, c in sorted(coefs.items(), key=lambda kv: (kv[1] != 1, kv[0])):
            v = self.variable(var)
            if acc is not None and c == t - 1:
                acc = self.emit(P.SUB, acc, v)
                continue
            term = self.scale(v, c)
            acc = term if acc is None else self.emit(P.ADD, acc, term)
        assert acc is not None
        return acc

    def completed_square(self, node: int) -> Value | None:
        """c * L^2 + rest for a quadratic value over bits-domain inputs (None if it is not
        one): the pairwise products must be 2c * l_i * l_j, the squares fold into the rest."""
        spec, t = self.spec, self.spec.plain_modulus
        poly = spec.evaluator(spec.poly_domain(), node)(0)
        quad: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}
        lin: dict[tuple[int, int], int] = {}
        const = 0
        for mono, c in poly.terms:
            degree = sum(e for _, e in mono)
            if degree == 0:
                const = c
            elif degree == 1:
                lin[mono[0][0]] = c
            elif degree == 2 and len(mono) == 2:
                quad[(mono[0][0], mono[1][0])] = c
            else:
                return None
        names = sorted({v for pair in quad for v in pair})
        if not quad or any(not (spec.inputs[i].boolean and spec.inputs[i].secret) for i, _ in names + list(lin)):
            return None

        def q(a: tuple[int, int], b: tuple[int, int]) -> int:
            return quad.get((min(a, b), max(a, b)), 0)

        pivot, others = names[0], names[1:]
        if any(not q(pivot, v) for v in others):
            return None
        c = (
            1
            if len(names) == 2
            else q(pivot, others[0]) * q(pivot, others[1]) * pow(2 * q(others[0], others[1]) or 1, -1, t) % t
        )
        if not c:
            return None
        ell = {pivot: 1, **{v: q(pivot, v) * pow(2 * c, -1, t) % t for v in others}}
        if any((2 * c * ell[a] * ell[b] - q(a, b)) % t for k, a in enumerate(names) for b in names[k + 1 :]):
            return None
        rest = dict(lin)
        for v in names:  # x * x = x: the squares of L are linear
            rest[v] = (rest.get(v, 0) - c * ell[v] * ell[v]) % t
        linear = self.combination(ell)
        out = self.scale(self.emit(P.MUL, linear, linear), c)
        terms = {v: r for v, r in rest.items() if r}
        if terms:
            out = self.emit(P.ADD, out, self.combination(terms))
        if const:
            out = self.emit(P.ADD_PLAIN, out, plain=self.plain(PlainSource("const", const)))
        return out

    def binary(self, node: int) -> Value:
        spec, n = self.spec, self.spec.nodes[node]
        x, y = n.args
        px, py = spec.is_public(x), spec.is_public(y)
        if not px and not py:
            op = {ADD: P.ADD, SUB: P.SUB, MUL: P.MUL}[n.kind]
            return self.emit(op, self.lower(x), self.lower(y))
        secret, pub = (y, x) if px else (x, y)
        v = self.lower(secret)
        if n.kind == MUL and spec.nodes[pub].kind == CONST:
            return self.scale(v, spec.nodes[pub].value)
        k = self.plain(self.public(pub))
        if n.kind == MUL:
            return self.emit(P.MUL_PLAIN, v, plain=k)
        if n.kind == ADD:
            return self.emit(P.ADD_PLAIN, v, plain=k)
        if py:  # x - p
            return self.emit(P.SUB_PLAIN, v, plain=k)
        return self.emit(P.ADD_PLAIN, self.emit(P.NEGATE, v), plain=k)  # p - x

    def horner(self, terms: dict[tuple[tuple[tuple[int, int], int], ...], int]) -> tuple[Value, bool] | None:
        """(v, negated): v = the polynomial (or its negation when `negated`), factoring the
        most frequent variable out of the products; None for what it does not handle."""
        t = self.spec.plain_modulus
        high = {m: c for m, c in terms.items() if sum(e for _, e in m) >= 2}
        if not high:
            return self.affine(terms)
        count: dict[tuple[int, int], int] = {}
        for mono in high:
            for v, _ in mono:
                count[v] = count.get(v, 0) + 1
        var = max(sorted(count), key=lambda v: count[v])
        if not self.spec.inputs[var[0]].secret:
            return None
        quotient: dict[tuple[tuple[tuple[int, int], int], ...], int] = {}
        rest: dict[tuple[tuple[tuple[int, int], int], ...], int] = {}
        for mono, c in terms.items():
            exps = dict(mono)
            if var in exps:
                exps[var] -= 1
                quotient[tuple(sorted((v, e) for v, e in exps.items() if e))] = c
            else:
                rest[mono] = c
        lead = next(iter(sorted(quotient.items())))[1]
        flip = lead > t // 2  # factor the sign out: R - (-Q) v rather than R + Q v with a negation
        inner = self.horner({m: (t - c if flip else c) % t for m, c in quotient.items()})
        if inner is None:
            return None
        q, q_negated = inner
        product = self.emit(P.MUL, q, self.variable(var))
        negated = flip != q_negated
        if not rest:
            return product, negated
        r = self.horner(rest)
        if r is None:
            return None
        rv, r_negated = r
        if negated == r_negated:
            return self.emit(P.ADD, rv, product), negated
        if r_negated:  # -R + Qv... = Qv - R
            return self.emit(P.SUB, product, rv), False
        return self.emit(P.SUB, rv, product), False

    def affine(self, terms: dict[tuple[tuple[tuple[int, int], int], ...], int]) -> tuple[Value, bool] | None:
        """A polynomial of degree <= 1 in secret variables (public ones and a constant added
        as plaintexts at slot 0); negated when all its secret coefficients are -1."""
        t = self.spec.plain_modulus
        secret = {m[0][0]: c for m, c in terms.items() if m and self.spec.inputs[m[0][0][0]].secret}
        plain = {m: c for m, c in terms.items() if not m or not self.spec.inputs[m[0][0][0]].secret}
        if not secret:
            return None
        negated = all(c == t - 1 for c in secret.values()) and len(secret) > 1
        out = self.combination({v: (t - c) % t if negated else c for v, c in secret.items()})
        for mono, c in plain.items():
            if mono and (mono[0][0][1] % self.spec.slots or c not in (1, t - 1)):
                return None  # a public value at another slot or scaled: not a plaintext operand
            source = PlainSource("input", mono[0][0][0]) if mono else PlainSource("const", c)
            add = (c == 1) != negated if mono else True
            value = c if not mono else 1
            if not mono:
                source = PlainSource("const", (t - value) % t if negated else value)
            out = self.emit(P.ADD_PLAIN if add else P.SUB_PLAIN, out, plain=self.plain(source))
        return out, negated

    def polynomial(self) -> Value | None:
        """The output by the Horner scheme (None when it does not apply)."""
        poly = self.spec.evaluator(self.spec.poly_domain())(0)
        terms = dict(poly.terms)
        if not terms or len(terms) > 64 or poly.degree() < 2:
            return None
        out = self.horner(terms)
        if out is None:
            return None
        value, negated = out
        return self.emit(P.NEGATE, value) if negated else value

    def program(self) -> Program:
        out = self.polynomial() if self.use_horner else None
        if out is None:
            if self.use_horner:
                raise LookupError("the Horner scheme does not apply")
            out = self.lower(self.spec.output)
        if out.rotation or out.source < self.first or not self.components:
            self.components.append(Component(P.ROTATE, Operand(out.source, out.rotation)))
        prog = Program(self.spec.slots, list(self.spec.secret_inputs), self.plain_sources, self.components)
        prog.place_relinearizations()
        return prog


def structured_programs(spec: Spec, units: dict[str, int], amounts: Sequence[int], deadline: float) -> list[Program]:
    """The lowered programs of the spec (full and windowed sums; with completed squares on
    bits-domain inputs), unverified."""
    out: list[Program] = []
    bits = any(spec.inputs[i].boolean for i in spec.secret_inputs)
    for window in (False, True):
        for squares in (False, True):
            if (window and not spec.has_sum()) or (squares and not bits):
                continue
            try:
                out.append(Lowering(spec, units, amounts, window, deadline, squares).program())
            except TimeoutError:
                return out
    if not spec.has_sum():
        try:
            out.append(Lowering(spec, units, amounts, False, deadline, horner=True).program())
        except (TimeoutError, LookupError):
            pass
    return out
