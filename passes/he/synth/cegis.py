"""Counterexample-guided inductive synthesis over the sketch, with cost tightening.

For each length L from a lower bound up: find a program that is right on the concrete
examples (z3, bit-vector holes), verify it symbolically for all inputs (z3 at the sketch's
slot width, which yields a counterexample when it fails), then exactly at the real plaintext
modulus (polynomial identity, `polynomial.py`). The first length with a program is the
shortest; its cost is then tightened (`cost <= best - 1`) until z3 proves no cheaper program
of that length exists, and `extra_length` longer sketches are searched under the same bound
(a longer program of cheap additions can beat a shorter one with a rotation). Everything runs
under one wall-clock budget; when it runs out the best program so far is returned and the
result says what was proven.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import z3

from tessel.passes.he.synth.polynomial import Poly, PolyDomain
from tessel.passes.he.synth.program import Program
from tessel.passes.he.synth.sketch import Example, Sketch, SketchShape
from tessel.passes.he.synth.spec import Spec

SAT, UNSAT, TIMEOUT = "sat", "unsat", "timeout"


class BlockProgram(Exception):
    """A candidate differs from the spec mod t but not at the slot width."""


@dataclass
class Outcome:
    status: str
    program: Program | None = None
    cost: int = 0


@dataclass
class SketchState:
    """What a sketch's queries share: its constraints, then its examples and blocked models."""

    constraints: list[z3.BoolRef]
    added: int = 0  # how many of the search's examples are in `constraints`


@dataclass
class SearchResult:
    program: Program | None
    cost: int
    depth_bound: int
    optimal: bool  # no cheaper program of length <= proven_length exists
    proven_length: int  # lengths 1..proven_length fully decided (0: none)
    shortest: int  # the length of the shortest program (0 if none found)
    seconds: float
    rounds: int  # synthesis queries answered
    examples: int
    timed_out: bool
    log: list[str] = field(default_factory=list)


class Z3Domain:
    """Slot values as z3 bit-vectors: a variable for each (input, slot) in `support`, 0
    elsewhere (a counterexample is searched for on a few slots at a time)."""

    def __init__(self, width: int, support: set[tuple[int, int]]):
        self.width = width
        self.support = support
        self.vars: dict[tuple[int, int], z3.BitVecRef] = {}

    def var(self, input: int, slot: int) -> z3.BitVecRef:
        if (input, slot) not in self.support:
            return z3.BitVecVal(0, self.width)
        if (input, slot) not in self.vars:
            self.vars[(input, slot)] = z3.BitVec(f"x{input}_{slot}", self.width)
        return self.vars[(input, slot)]

    def const(self, value: int) -> z3.BitVecRef:
        return z3.BitVecVal(value % (1 << self.width), self.width)

    def add(self, a, b):
        return a + b

    def sub(self, a, b):
        return a - b

    def mul(self, a, b):
        return a * b

    def neg(self, a):
        return -a


def difference(spec: Spec, program: Program, slot: int) -> Poly:
    """spec - program at one slot, as a polynomial over Z_t (zero iff they agree there)."""
    domain = PolyDomain(spec.plain_modulus, spec.boolean_inputs)
    return domain.sub(spec.evaluator(domain)(slot), program.evaluator(domain)(slot))


def exact_equal(spec: Spec, program: Program, slots: Sequence[int]) -> bool:
    """Program == spec at these slots as polynomials over Z_t (exact, for all inputs)."""
    return all(not difference(spec, program, p).terms for p in slots)


class Search:
    def __init__(
        self,
        spec: Spec,
        shape: SketchShape,
        costs_for_depth: Callable[[int], dict[str, int]],
        *,
        budget_s: float,
        seed: int = 0,
        progress: Callable[[str], None] | None = None,
    ):
        self.spec, self.shape, self.costs_for_depth = spec, shape, costs_for_depth
        self.deadline = time.monotonic() + budget_s
        self.start = time.monotonic()
        self.rng = random.Random(seed)
        self.progress = progress or (lambda _msg: None)
        self.examples: list[Example] = self._initial_examples()
        self.rounds = 0
        self.log: list[str] = []

    # ------------------------------------------------------------------ helpers

    def say(self, msg: str) -> None:
        line = f"@{self.spec.name} [{time.monotonic() - self.start:6.1f}s] {msg}"
        self.log.append(line)
        self.progress(line)

    def remaining_ms(self) -> int:
        return int((self.deadline - time.monotonic()) * 1000)

    def _value(self, input: int) -> int:
        top = 1 if self.spec.inputs[input].boolean else (1 << self.shape.width) - 1
        return self.rng.randint(1, top)

    def _initial_examples(self) -> list[Example]:
        """One impulse per slot the spec reads (each input alone), and one input with all of
        them set: cheap for z3 and enough to pin most linear kernels down at once."""
        support = sorted(self._spec_support())
        examples: list[Example] = [{v: self._value(v[0])} for v in support]
        examples.append({v: self._value(v[0]) for v in support})
        return examples

    def _spec_support(self) -> set[tuple[int, int]]:
        domain = PolyDomain(self.spec.plain_modulus, self.spec.boolean_inputs)
        support: set[tuple[int, int]] = set()
        at = self.spec.evaluator(domain)
        for p in self.spec.check_slots():
            support |= at(p).variables()
        return support

    def counterexample(self, program: Program) -> Example | None:
        """None when the program equals the spec exactly (mod t, all inputs). Otherwise z3
        searches, at the slot width, for an input on which they differ, restricted to the
        variables of one monomial of their difference (a sparse counterexample). The
        exception BlockProgram means they differ mod t but agree at the slot width."""
        diffs = [difference(self.spec, program, p) for p in self.spec.check_slots()]
        if not any(d.terms for d in diffs):
            return None
        monomials = sorted({m for d in diffs for m, _ in d.terms}, key=lambda m: (len(m), m))
        supports = [{v for v, _ in m} for m in monomials]
        supports.append(set().union(*supports))
        for support in supports:
            domain = Z3Domain(self.shape.width, support)
            want, got = self.spec.evaluator(domain), program.evaluator(domain)
            solver = z3.SolverFor("QF_BV")
            solver.set("timeout", max(1, self.remaining_ms()))
            solver.add(z3.Or([want(p) != got(p) for p in self.spec.check_slots()]))
            for (i, _), v in domain.vars.items():
                if self.spec.inputs[i].boolean:
                    solver.add(z3.ULE(v, 1))
            result = solver.check()
            if result == z3.sat:
                model = solver.model()
                return {key: model.eval(v, model_completion=True).as_long() for key, v in domain.vars.items()}
            if result != z3.unsat:
                raise TimeoutError
        raise BlockProgram

    # ------------------------------------------------------------------ one sketch

    def solve(self, sketch: Sketch, state: SketchState, bound: int | None) -> Outcome:
        """CEGIS on one sketch under an optional cost bound.

        Each query gets a fresh solver: z3's QF_BV tactic (simplify, bit-blast, SAT) is only
        used non-incrementally, and measured 2-10x faster here than the incremental core."""
        while True:
            while state.added < len(self.examples):
                state.constraints.append(sketch.example(self.examples[state.added]))
                state.added += 1
            if self.remaining_ms() <= 0:
                return Outcome(TIMEOUT)
            solver = z3.SolverFor("QF_BV")
            solver.set("timeout", self.remaining_ms())
            solver.add(state.constraints)
            if bound is not None:
                solver.add(z3.ULE(sketch.cost(), z3.BitVecVal(bound, sketch.cost_bits)))
            result = solver.check()
            self.rounds += 1
            if result == z3.unsat:
                return Outcome(UNSAT)
            if result != z3.sat:
                return Outcome(TIMEOUT)
            model = solver.model()
            program = sketch.decode(model)
            try:
                cex = self.counterexample(program)
            except TimeoutError:
                return Outcome(TIMEOUT)
            except BlockProgram:
                # equal at the slot width but not mod t: exclude this program only
                state.constraints.append(sketch.block(model))
                continue
            if cex is not None:
                self.examples.append(cex)
                continue
            return Outcome(SAT, program, model.eval(sketch.cost(), model_completion=True).as_long())

    # ------------------------------------------------------------------ the search

    def run(self, min_length: int, max_length: int, depth: int, extra_length: int) -> SearchResult:
        costs = self.costs_for_depth(depth)
        best: Outcome | None = None
        shortest = 0
        proven = min_length - 1  # every length <= proven is decided (shorter ones by the lower bound)
        timed_out = False
        sketches: dict[int, tuple[Sketch, SketchState]] = {}

        def sketch_for(length: int) -> tuple[Sketch, SketchState]:
            if length not in sketches:
                sk = Sketch(self.spec, self.shape, length, depth, costs)
                sketches[length] = (sk, SketchState(sk.constraints()))
            return sketches[length]

        length = min_length
        stop = max_length
        self.say(
            f"depth <= {depth}, lengths {min_length}..{max_length}, {len(self.shape.ops)} ops "
            f"({', '.join(self.shape.ops)}), rotations {list(self.shape.rotations[1:])}"
        )
        while length <= stop:
            sk, state = sketch_for(length)
            bound = None if best is None else best.cost - 1
            what = "searching" if bound is None else f"searching for cost <= {bound}"
            self.say(f"length {length}: {what}")
            outcome = self.solve(sk, state, bound)
            if outcome.status == TIMEOUT:
                self.say(f"length {length}: budget exhausted")
                timed_out = True
                break
            if outcome.status == UNSAT:
                self.say(f"length {length}: no program" + ("" if bound is None else f" with cost <= {bound}"))
                if proven == length - 1:
                    proven = length
                length += 1
                continue
            assert outcome.program is not None
            best = outcome
            if not shortest:
                shortest = length
                stop = min(max_length, length + extra_length)
            counts = outcome.program.counts()
            self.say(
                f"length {length}: found cost {outcome.cost} ({counts['rotate']} rot, "
                f"{counts['multiply']} mul, {counts['multiply_plain']} mul_plain); tightening"
            )
            # stay at this length: the next query asks for something cheaper
        return SearchResult(
            program=None if best is None else best.program,
            cost=0 if best is None else best.cost,
            depth_bound=depth,
            optimal=best is not None and not timed_out and proven >= stop,
            proven_length=proven,
            shortest=shortest,
            seconds=time.monotonic() - self.start,
            rounds=self.rounds,
            examples=len(self.examples),
            timed_out=timed_out,
            log=self.log,
        )
