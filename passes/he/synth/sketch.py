"""The component sketch as a z3 query (Porcupine's local-rotate sketch, QF_BV).

A sketch of length L has, per component i, holes for its operation, its ciphertext
operands (source and rotation, each rotation an index into the allowed amounts), its
plaintext operand and whether its result is relinearized. The constraints say what a
well-formed, canonical program is:

- *restriction*: only the operations and rotation amounts the spec implies;
- *symmetry breaking*: commutative operands ordered, unused holes pinned to 0, no dead
  components, adjacent independent components in a canonical order;
- *relinearization*: a size-3 ciphertext (a product, or anything computed from an
  unrelinearized product) must be relinearized before a rotation, a multiplication or the
  output, and only size-3 values are relinearized;
- *depth*: the ct-ct multiplicative depth of the output is at most D;
- *cost*: the measured latency of the operations, each distinct rotation counted once.

`example(values)` adds a concrete input: the output slots to check must equal the spec's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

import z3

from tessel.dialects.hev.reference import IntDomain
from tessel.passes.he.synth.program import (
    ADD,
    ADD_PLAIN,
    COMMUTATIVE,
    CT_CT,
    MUL,
    MUL_PLAIN,
    NEGATE,
    PLAIN,
    SUB,
    SUB_PLAIN,
    Component,
    Operand,
    PlainSource,
    Program,
)
from tessel.passes.he.synth.spec import Spec

Example = dict[tuple[int, int], int]  # (spec input, slot) -> value; absent slots are 0
Value: TypeAlias = "int | z3.BitVecRef"  # a slot value while building a constraint: folded when constant


class SparseInputs:
    """`inputs[i][slot]` over a sparse example."""

    def __init__(self, values: Example):
        self.values = values

    def __getitem__(self, i: int) -> _Row:
        return _Row(self.values, i)


class _Row:
    def __init__(self, values: Example, i: int):
        self.values, self.i = values, i

    def __getitem__(self, slot: int) -> int:
        return self.values.get((self.i, slot), 0)


def _bv(v: Value, width: int) -> z3.BitVecRef:
    return z3.BitVecVal(v, width) if isinstance(v, int) else v


def _select(leaves: Sequence[tuple[z3.BoolRef, Value]], width: int) -> Value:
    """The value of the one leaf whose condition holds (conditions are exclusive and one
    holds). Leaves equal to the most common constant collapse into the default."""
    consts = [v for _, v in leaves if isinstance(v, int)]
    default = max(set(consts), key=consts.count) if consts else None
    if default is not None and len(consts) == len(leaves) and len(set(consts)) == 1:
        return default
    rest = [(c, v) for c, v in leaves if not (isinstance(v, int) and v == default)]
    if default is None:
        c0, out = rest.pop()
        del c0
    else:
        out = default
    result = _bv(out, width)
    for cond, v in reversed(rest):
        result = z3.If(cond, _bv(v, width), result)
    return result


def _arith(op: str, a: Value, b: Value, width: int) -> Value:
    mask = (1 << width) - 1
    if isinstance(a, int) and isinstance(b, int):
        return {ADD: a + b, SUB: a - b, MUL: a * b}[op] & mask
    if op == MUL and ((isinstance(a, int) and a == 0) or (isinstance(b, int) and b == 0)):
        return 0
    if op in (ADD, SUB) and isinstance(b, int) and b == 0:
        return a
    if op == ADD and isinstance(a, int) and a == 0:
        return b
    x, y = _bv(a, width), _bv(b, width)
    return {ADD: x + y, SUB: x - y, MUL: x * y}[op]


@dataclass(frozen=True)
class SketchShape:
    """Everything that fixes the search space apart from the length."""

    ops: tuple[str, ...]
    rotations: tuple[int, ...]  # allowed amounts; index 0 is 0 (no rotation)
    plain_sources: tuple[PlainSource, ...]
    width: int = 4  # bits per slot in the z3 queries


def _bits(count: int) -> int:
    """Bits for a hole compared against `count` (the bound itself must be representable)."""
    return max(1, count.bit_length())


class Sketch:
    def __init__(self, spec: Spec, shape: SketchShape, length: int, max_depth: int, costs: dict[str, int]):
        self.spec, self.shape, self.length, self.max_depth, self.costs = spec, shape, length, max_depth, costs
        self.first = len(spec.secret_inputs)
        self.n = spec.slots
        sb, rb = _bits(self.first + length), _bits(len(shape.rotations))
        ob, pb = _bits(len(shape.ops)), _bits(len(shape.plain_sources))
        L = range(length)
        self.op = [z3.BitVec(f"op{i}", ob) for i in L]
        self.a = [z3.BitVec(f"a{i}", sb) for i in L]
        self.ra = [z3.BitVec(f"ra{i}", rb) for i in L]
        self.b = [z3.BitVec(f"b{i}", sb) for i in L]
        self.rb = [z3.BitVec(f"rb{i}", rb) for i in L]
        self.p = [z3.BitVec(f"p{i}", pb) for i in L]
        self.relin = [z3.Bool(f"relin{i}") for i in L]
        self._cost: z3.BitVecRef | None = None

    # ------------------------------------------------------------------ helpers

    def is_op(self, i: int, names: Sequence[str]) -> z3.BoolRef:
        idx = [k for k, o in enumerate(self.shape.ops) if o in names]
        return z3.Or([self.op[i] == k for k in idx]) if idx else z3.BoolVal(False)

    def uses_b(self, i: int) -> z3.BoolRef:
        return self.is_op(i, CT_CT)

    def holes(self) -> list[z3.ExprRef]:
        return [*self.op, *self.a, *self.ra, *self.b, *self.rb, *self.p, *self.relin]

    def _src_flag(self, src: z3.BitVecRef, flags: Sequence[z3.BoolRef], upto: int) -> z3.BoolRef:
        """flags[source] for a source hole (inputs have flag False)."""
        return z3.Or([z3.And(src == self.first + j, flags[j]) for j in range(upto)] or [z3.BoolVal(False)])

    def _src_depth(self, src: z3.BitVecRef, depths: Sequence[z3.BitVecRef], upto: int) -> z3.BitVecRef:
        out: z3.BitVecRef = z3.BitVecVal(0, 4)
        for j in range(upto):
            out = z3.If(src == self.first + j, depths[j], out)
        return out

    # ------------------------------------------------------------------ structure

    def constraints(self) -> list[z3.BoolRef]:
        s, L = self.shape, self.length
        cs: list[z3.BoolRef] = []
        size3: list[z3.BoolRef] = []  # effective: size 3 after the optional relinearization
        depths: list[z3.BitVecRef] = []
        for i in range(L):
            cs.append(z3.ULT(self.op[i], len(s.ops)))
            cs.append(z3.ULT(self.a[i], self.first + i))
            cs.append(z3.ULT(self.ra[i], len(s.rotations)))
            cs.append(z3.Implies(self.uses_b(i), z3.ULT(self.b[i], self.first + i)))
            cs.append(z3.Implies(self.uses_b(i), z3.ULT(self.rb[i], len(s.rotations))))
            cs.append(z3.Implies(z3.Not(self.uses_b(i)), z3.And(self.b[i] == 0, self.rb[i] == 0)))
            plain = self.is_op(i, PLAIN)
            cs.append(z3.Implies(plain, z3.ULT(self.p[i], len(s.plain_sources))))
            cs.append(z3.Implies(z3.Not(plain), self.p[i] == 0))
            # commutative operands in order: (a, ra) <= (b, rb)
            comm = self.is_op(i, COMMUTATIVE)
            cs.append(
                z3.Implies(
                    comm,
                    z3.Or(z3.ULT(self.a[i], self.b[i]), z3.And(self.a[i] == self.b[i], z3.ULE(self.ra[i], self.rb[i]))),
                )
            )
            # relinearization
            a3 = self._src_flag(self.a[i], size3, i)
            b3 = z3.And(self.uses_b(i), self._src_flag(self.b[i], size3, i))
            raw = z3.Or(self.is_op(i, (MUL,)), a3, b3)
            cs.append(z3.Implies(self.relin[i], raw))
            cs.append(z3.Implies(self.is_op(i, (MUL,)), z3.And(z3.Not(a3), z3.Not(b3))))
            cs.append(z3.Implies(self.ra[i] != 0, z3.Not(a3)))
            cs.append(z3.Implies(z3.And(self.uses_b(i), self.rb[i] != 0), z3.Not(b3)))
            size3.append(z3.And(raw, z3.Not(self.relin[i])))
            # depth
            da = self._src_depth(self.a[i], depths, i)
            db = z3.If(self.uses_b(i), self._src_depth(self.b[i], depths, i), z3.BitVecVal(0, 4))
            d = z3.If(z3.UGE(da, db), da, db) + z3.If(self.is_op(i, (MUL,)), z3.BitVecVal(1, 4), z3.BitVecVal(0, 4))
            depths.append(d)
        cs.append(z3.Not(size3[-1]))
        cs.append(z3.ULE(depths[-1], self.max_depth))
        # no dead components
        for i in range(L - 1):
            src = self.first + i
            cs.append(
                z3.Or([z3.Or(self.a[j] == src, z3.And(self.uses_b(j), self.b[j] == src)) for j in range(i + 1, L)])
            )
        # adjacent independent components in canonical order
        for i in range(L - 1):
            j, src = i + 1, self.first + i
            independent = z3.And(self.a[j] != src, z3.Or(z3.Not(self.uses_b(j)), self.b[j] != src))
            key = lambda k: z3.Concat(self.op[k], self.a[k], self.ra[k], self.b[k], self.rb[k], self.p[k])  # noqa: E731
            cs.append(z3.Implies(independent, z3.ULE(key(i), key(j))))
        return cs

    def cost_terms(self) -> list[tuple[z3.BoolRef, int]]:
        """(condition, cost) pairs whose sum is the program's cost: each component's
        operation, each relinearization, each distinct rotation (a rotation of the same
        value by the same amount is computed once, however many components read it)."""
        c = self.costs
        terms: list[tuple[z3.BoolRef, int]] = []
        slots: list[tuple[z3.BoolRef, z3.BitVecRef, z3.BitVecRef]] = []
        for i in range(self.length):
            for k, name in enumerate(self.shape.ops):
                if name == MUL and "square" in c:  # SEAL squares faster than it multiplies
                    same = z3.And(self.a[i] == self.b[i], self.ra[i] == self.rb[i])
                    terms.append((z3.And(self.op[i] == k, same), c["square"]))
                    terms.append((z3.And(self.op[i] == k, z3.Not(same)), c[name]))
                else:
                    terms.append((self.op[i] == k, c[name]))
            terms.append((self.relin[i], c["relinearize"]))
            slots.append((z3.BoolVal(True), self.a[i], self.ra[i]))
            slots.append((self.uses_b(i), self.b[i], self.rb[i]))
        for k, (used, src, rot) in enumerate(slots):
            repeat = z3.Or([z3.And(u, s == src, r == rot) for u, s, r in slots[:k]] or [z3.BoolVal(False)])
            terms.append((z3.And(used, rot != 0, z3.Not(repeat)), c["rotate"]))
        return [(b, w) for b, w in terms if w > 0]

    @property
    def cost_bits(self) -> int:
        """Wide enough for the most expensive program of this length (small adders)."""
        worst = sum(w for _, w in self.cost_terms())
        return worst.bit_length() + 1

    def cost(self) -> z3.BitVecRef:
        """The program's cost as a bit-vector sum of `cost_terms`."""
        if self._cost is None:
            bits = self.cost_bits
            total: z3.BitVecRef = z3.BitVecVal(0, bits)
            for cond, w in self.cost_terms():
                total = total + z3.If(cond, z3.BitVecVal(w, bits), z3.BitVecVal(0, bits))
            self._cost = total
        return self._cost

    # ------------------------------------------------------------------ examples

    def example(self, values: Example, slot: int) -> z3.BoolRef:
        """The output equals the spec at an output slot on this concrete input.

        Examples are sparse (every slot not listed is 0), and slot values are folded in
        Python while the constraint is built, so a slot that reads only zeros costs nothing:
        z3 sees only the few slots that carry information.
        """
        w = self.shape.width
        mask = (1 << w) - 1
        spec_at = self.spec.evaluator(IntDomain(1 << w, SparseInputs(values)))
        memo: dict[tuple[int, int], Value] = {}
        rot = self.shape.rotations
        spec_inputs = self.spec.secret_inputs

        def plain_at(k: int, slot: int) -> Value:
            src = self.shape.plain_sources[k]
            return values.get((src.value, slot), 0) if src.kind == "input" else src.value & mask

        def operand(src_hole: z3.BitVecRef, rot_hole: z3.BitVecRef, upto: int, slot: int) -> Value:
            leaves = [
                (z3.And(src_hole == s, rot_hole == r), value(s, (slot + rot[r]) % self.n))
                for s in range(upto)
                for r in range(len(rot))
            ]
            return _select(leaves, w)

        def value(src: int, slot: int) -> Value:
            key = (src, slot)
            if key in memo:
                return memo[key]
            if src < self.first:
                v: Value = values.get((spec_inputs[src], slot), 0) & mask
            else:
                i = src - self.first
                upto = self.first + i
                A = operand(self.a[i], self.ra[i], upto, slot)
                B = operand(self.b[i], self.rb[i], upto, slot)
                leaves = []
                for k, name in enumerate(self.shape.ops):
                    if name in CT_CT:
                        r = _arith(name, A, B, w)
                    elif name == NEGATE:
                        r = _arith(SUB, 0, A, w)
                    else:
                        P = _select(
                            [(self.p[i] == j, plain_at(j, slot)) for j in range(len(self.shape.plain_sources))], w
                        )
                        r = _arith({ADD_PLAIN: ADD, SUB_PLAIN: SUB, MUL_PLAIN: MUL}[name], A, P, w)
                    leaves.append((self.op[i] == k, r))
                v = _select(leaves, w)
            memo[key] = v
            return v

        out = self.first + self.length - 1
        return _bv(value(out, slot % self.n), w) == z3.BitVecVal(spec_at(slot), w)

    # ------------------------------------------------------------------ models

    def decode(self, model: z3.ModelRef) -> Program:
        def get(x: z3.ExprRef) -> int:
            return model.eval(x, model_completion=True).as_long()

        comps = []
        for i in range(self.length):
            op = self.shape.ops[get(self.op[i])]
            a = Operand(get(self.a[i]), self.shape.rotations[get(self.ra[i])])
            b = Operand(get(self.b[i]), self.shape.rotations[get(self.rb[i])]) if op in CT_CT else None
            plain = get(self.p[i]) if op in PLAIN else None
            comps.append(Component(op, a, b, plain))
        relin = [z3.is_true(model.eval(r, model_completion=True)) for r in self.relin]
        return Program(self.n, list(self.spec.secret_inputs), list(self.shape.plain_sources), comps, relin)

    def block(self, model: z3.ModelRef) -> z3.BoolRef:
        """Exclude exactly this assignment of the holes."""
        return z3.Or([h != model.eval(h, model_completion=True) for h in self.holes()])
