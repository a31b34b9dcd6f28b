"""Lower bounds every program of the sketch must meet, and the cost they imply.

Read off the spec's exact polynomials at the slots that are checked (padding substituted by
0), they cut the search at both ends: no solver time on lengths that cannot hold a program,
and none on lengths whose cheapest possible program already costs as much as the best one
found: when `cost(length)` reaches the best cost, that program is optimal.

- depth >= ceil(log2(degree in secret inputs)); ct-ct multiplications >= depth, and as many
  relinearizations (each product on the critical path is relinearized before the next
  multiplication or the output);
- a multiplication by a plaintext when a monomial mixes a public and a secret input;
- with one multiplication that is a square and no rotation after it, the quadratic part
  of the output is c * L^2 (a rank-1 form); when it is not (a * x), the program pays a
  product, two squares, or a square and a rotation (inputs of the bits domain and public
  factors excepted: x^2 = x and plaintext factors hide the form);
- length >= ceil(log2(support)) (a component at most doubles what a value reads),
  >= (inputs read) - 1, >= the multiplications above;
- rotations: an output slot reads input slot p + o only through a path whose rotations add
  up to o, and a path uses each distinct rotation at most once, so every offset read must
  be a sum of a sub-multiset of the program's rotation amounts (`min_rotations`: the
  smallest such multiset among the sketch's amounts, searched exactly; a log2 bound when
  the budget runs out).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tessel.passes.he.synth.spec import Spec, ceil_log2

NODE_LIMIT = 200_000  # cover-search nodes per rotation count before settling for the log2 bound


@dataclass(frozen=True)
class Bounds:
    min_length: int
    min_depth: int
    support: int  # input slots the checked output slots read
    min_rotations: int
    min_multiplies: int
    min_relinearizations: int
    min_plain_multiplies: int
    offsets: frozenset[int]  # every offset an output slot reads (mod n, without 0)
    rank1: bool = True  # the quadratic part of the output may be c * L^2

    def cost(self, length: int, units: dict[str, int], ops: Iterable[str], rotations: bool = True) -> int:
        """No program of `length` components in the sketch costs less (in `units`);
        `rotations`: whether the sketch can rotate at all."""
        square = units.get("square", units["multiply"])
        mul = min(units["multiply"], square)
        if self.min_multiplies == 1 and not self.rank1 and not self.min_rotations:
            # one square, then a rotation to sum rotated squares; or two squares; or a product
            mul = min(units["multiply"], 2 * square, square + units["rotate"] if rotations else units["multiply"])
        fixed = self.min_multiplies + self.min_plain_multiplies
        cheapest = min((units[o] for o in ops), default=0)
        return (
            self.min_rotations * units["rotate"]
            + self.min_multiplies * mul
            + self.min_relinearizations * units["relinearize"]
            + self.min_plain_multiplies * units["multiply_plain"]
            + max(0, length - fixed) * cheapest
        )


def bounds(
    spec: Spec, amounts: Sequence[int] = (), rotation_limit: int | None = None, deadline: float | None = None
) -> Bounds:
    """The bounds of `spec`; `amounts` are the sketch's rotation amounts (for the rotation
    bound), `rotation_limit` the most rotations worth proving impossible (a known program's)."""
    domain = spec.poly_domain()
    at = spec.evaluator(domain)
    secret = set(spec.secret_inputs)
    support, degree, used, mixed, rank1 = 0, 0, set(), False, True
    offsets: set[int] = set()
    for p in spec.check_slots():
        poly = at(p)
        rank1 &= _maybe_square(poly.terms, set(spec.boolean_inputs) | set(spec.public_inputs), spec.plain_modulus)
        variables = poly.variables()
        support = max(support, len(variables))
        degree = max(degree, poly.degree(spec.secret_inputs))
        used |= {i for i, _ in variables}
        offsets |= {(s - p) % spec.slots for _, s in variables}
        for mono, _ in poly.terms:
            inputs = {i for (i, _), _ in mono}
            mixed |= bool(inputs & secret) and bool(inputs - secret)
    offsets.discard(0)
    depth = ceil_log2(degree)
    plain = 1 if mixed else 0
    length = max(1, ceil_log2(support), len(used) - 1, depth + plain)
    upper = rotation_limit if rotation_limit is not None else len(offsets)
    rotations = min_rotations(offsets, amounts, spec.slots, upper, deadline)
    return Bounds(length, depth, support, rotations, depth, depth, plain, frozenset(offsets), rank1)


def _maybe_square(
    terms: Sequence[tuple[tuple[tuple[tuple[int, int], int], ...], int]], boolean: set[int], t: int
) -> bool:
    """Whether the degree-2 part of a polynomial can be c * L^2 for a linear form L: its
    symmetric matrix is rank 1 (True as well when a bits-domain input is involved)."""
    quad: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}
    for mono, c in terms:
        if sum(e for _, e in mono) >= 2 and any(i in boolean for (i, _), _ in mono):
            return True
        if sum(e for _, e in mono) != 2:
            continue
        if len(mono) == 1:
            ((v, _),) = mono
            quad[(v, v)] = c
        else:
            (u, _), (v, _) = mono
            quad[(u, v)] = c * pow(2, -1, t) % t  # off-diagonal entries are half the coefficient
    if not quad:
        return True
    variables = sorted({v for pair in quad for v in pair})

    def m(a: tuple[int, int], b: tuple[int, int]) -> int:
        return quad.get((a, b), quad.get((b, a), 0))

    pivot = next((v for v in variables if m(v, v)), None)
    if pivot is None:
        return False  # no square term but a product term: rank 2
    inv = pow(m(pivot, pivot), -1, t)
    return all((m(a, b) - m(pivot, a) * m(pivot, b) * inv) % t == 0 for a in variables for b in variables)


def min_rotations(targets: set[int], amounts: Sequence[int], n: int, upper: int, deadline: float | None = None) -> int:
    """The fewest amounts (from `amounts`, repeats allowed) whose sub-multiset sums mod n
    cover `targets`, or `upper` when none of fewer exists. Proven for every count below the
    result; when the search is cut short (node limit, deadline) the count it was on."""
    targets = {o % n for o in targets} - {0}
    if not targets:
        return 0
    candidates = [a % n for a in amounts if a % n]
    k = max(1, ceil_log2(len(targets) + 1))  # k amounts give at most 2^k sums, 0 among them
    while k < upper:
        found = _cover(targets, candidates, n, k, deadline)
        if found is None or found:
            return k  # a cover (or undecided: k is what is proven)
        k += 1
    return max(upper, 0)


def _cover(targets: set[int], candidates: list[int], n: int, k: int, deadline: float | None) -> bool | None:
    """Whether k amounts cover the targets; None when the search was cut short."""
    nodes = 0
    want = len(targets)

    def search(start: int, sums: frozenset[int], left: int) -> bool | None:
        nonlocal nodes
        nodes += 1
        if nodes > NODE_LIMIT or (deadline is not None and nodes % 512 == 0 and time.monotonic() > deadline):
            return None
        missing = want - len(targets & sums)
        if missing == 0:
            return True
        if left == 0 or missing > len(sums) * ((1 << left) - 1):
            return False
        undecided = False
        for j in range(start, len(candidates)):
            r = candidates[j]
            grown = sums | {(s + r) % n for s in sums}
            if len(grown) == len(sums):
                continue
            result = search(j, frozenset(grown), left - 1)
            if result:
                return True
            undecided |= result is None
        return None if undecided else False

    return search(0, frozenset({0}), k)
