"""The synthesizer's program model: a straight line of components, each one BFV operation
whose ciphertext operands may be rotated first (Porcupine's "local rotate" sketch).

Sources are numbered: 0..I-1 are the secret inputs (ciphertexts), I+j is component j.
Plaintext operands of the `*_plain` ops come from `plain_sources`: public inputs and the
spec's splat constants. The last component is the output. `relinearize[j]` says whether
component j's result is relinearized (the sketch places relinearizations lazily: only where
a size-3 ciphertext would reach a rotation, a multiplication or the output).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tessel.dialects.hev.reference import Domain

# Component operations. CT_CT take two ciphertexts, PLAIN take a ciphertext and a plaintext.
ADD, SUB, MUL, NEGATE = "add", "sub", "multiply", "negate"
ADD_PLAIN, SUB_PLAIN, MUL_PLAIN = "add_plain", "sub_plain", "multiply_plain"
CT_CT = (ADD, SUB, MUL)
PLAIN = (ADD_PLAIN, SUB_PLAIN, MUL_PLAIN)
UNARY = (NEGATE,)
COMMUTATIVE = (ADD, MUL)
ALL_OPS = (ADD, SUB, MUL, NEGATE, ADD_PLAIN, SUB_PLAIN, MUL_PLAIN)
ROTATE = "rotate"  # a lone rotation of a value, as the last component (the output shifted)


@dataclass(frozen=True)
class Operand:
    source: int
    rotation: int = 0  # slot i of the operand reads slot i + rotation of the source


@dataclass(frozen=True)
class Component:
    op: str
    a: Operand
    b: Operand | None = None  # second ciphertext of CT_CT ops
    plain: int | None = None  # index into plain_sources for PLAIN ops


@dataclass(frozen=True)
class PlainSource:
    """A plaintext operand: a public input (by spec input index) or a splat constant."""

    kind: str  # "input" or "const"
    value: int


@dataclass
class Program:
    slots: int
    secret_inputs: list[int]  # spec input index of ciphertext source i
    plain_sources: list[PlainSource]
    components: list[Component]
    relinearize: list[bool] = field(default_factory=list)

    @property
    def num_inputs(self) -> int:
        return len(self.secret_inputs)

    def operands(self, c: Component) -> list[Operand]:
        return [c.a] if c.b is None else [c.a, c.b]

    # ------------------------------------------------------------------ evaluation

    def evaluator(self, domain: Domain) -> Callable[[int], Any]:
        """slot -> value of the output at that slot (lazy, memoized)."""
        memo: dict[tuple[int, int], Any] = {}
        n, first = self.slots, self.num_inputs

        def at(source: int, slot: int) -> Any:
            key = (source, slot)
            if key in memo:
                return memo[key]
            if source < first:
                v = domain.var(self.secret_inputs[source], slot)
            else:
                c = self.components[source - first]
                a = at(c.a.source, (slot + c.a.rotation) % n)
                if c.op == NEGATE:
                    v = domain.neg(a)
                elif c.op == ROTATE:
                    v = a
                elif c.op in PLAIN:
                    assert c.plain is not None
                    p = self.plain_sources[c.plain]
                    pv = domain.var(p.value, slot) if p.kind == "input" else domain.const(p.value)
                    v = {ADD_PLAIN: domain.add, SUB_PLAIN: domain.sub, MUL_PLAIN: domain.mul}[c.op](a, pv)
                else:
                    assert c.b is not None
                    b = at(c.b.source, (slot + c.b.rotation) % n)
                    v = {ADD: domain.add, SUB: domain.sub, MUL: domain.mul}[c.op](a, b)
            memo[key] = v
            return v

        out = first + len(self.components) - 1
        return lambda slot: at(out, slot % n)

    # ------------------------------------------------------------------ metrics

    def rotations(self) -> list[tuple[int, int]]:
        """Distinct (source, amount) rotations, in first-use order (each is computed once)."""
        seen: list[tuple[int, int]] = []
        for c in self.components:
            for o in self.operands(c):
                if o.rotation and (o.source, o.rotation) not in seen:
                    seen.append((o.source, o.rotation))
        return seen

    def depths(self) -> list[int]:
        """Multiplicative (ct-ct) depth of every source."""
        d = [0] * self.num_inputs
        for c in self.components:
            base = max(d[o.source] for o in self.operands(c))
            d.append(base + (1 if c.op == MUL else 0))
        return d

    def depth(self) -> int:
        return self.depths()[-1] if self.components else 0

    def counts(self) -> dict[str, int]:
        """Operation counts as they will run (rotations de-duplicated, relinearizations placed)."""
        counts = {op: 0 for op in ALL_OPS}
        for c in self.components:
            if c.op != ROTATE:
                counts[c.op] += 1
        counts["rotate"] = len(self.rotations())
        counts["relinearize"] = sum(self.relinearize)
        return counts

    def cost(self, units: dict[str, int]) -> int:
        """The program's cost in the sketch's units (`Sketch.cost_terms` in Python): each
        component's operation (a product of a value with itself as a square), each
        relinearization, each distinct rotation once."""
        total = 0
        for c in self.components:
            if c.op == MUL and c.a == c.b and "square" in units:
                total += units["square"]
            elif c.op != ROTATE:
                total += units[c.op]
        total += units["relinearize"] * sum(self.relinearize)
        return total + units["rotate"] * len(self.rotations())

    def place_relinearizations(self) -> None:
        """Relinearize exactly where a size-3 value (a product, or computed from one) would
        reach a rotation, a multiplication or the output, at the value itself (the rule the
        sketch's constraints state)."""
        first = self.num_inputs
        self.relinearize = [False] * len(self.components)
        while True:
            size3: list[bool] = []
            for j, c in enumerate(self.components):
                raw = c.op == MUL or any(o.source >= first and size3[o.source - first] for o in self.operands(c))
                size3.append(raw and not self.relinearize[j])
            need = {
                o.source - first
                for c in self.components
                for o in self.operands(c)
                if o.source >= first and (c.op in (MUL, ROTATE) or o.rotation)
            }
            need.add(len(self.components) - 1)
            wrong = [j for j in need if size3[j]]
            if not wrong:
                return
            self.relinearize[min(wrong)] = True  # the earliest: what it feeds may then be size 2
