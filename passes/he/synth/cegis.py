"""Counterexample-guided inductive synthesis over the sketch, bounded from both sides.

The search starts with the best structured program (`lower.py`, verified exactly) as an
upper bound and the spec's lower bounds (`bounds.py`) as a floor. Lengths are visited in
order, and so in order of the least cost a program of that length can have: at each length
z3 looks for a program strictly cheaper than the best so far (`cost <= best - 1`):
find a program that is right on the concrete examples (bit-vector holes), verify it for
all inputs (exactly, as polynomials mod t, at one slot per class of alike slots; z3 at the
sketch's slot width finds a sparse counterexample when it fails), and tighten. A length
where z3 proves there is none is decided; the search stops as soon as the cheapest program
the next length could hold costs at least the best one: that program is then optimal, at
every length. Otherwise the lengths searched end `extra_length` after the best program's
length (max-length at most), and "optimal" means what Porcupine's claim means: no cheaper
program of at most that many operations.
Everything runs under one wall-clock budget, checked in every phase; when it runs out the
best program so far is returned and the result says what was proven.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import z3

from tessel.passes.he.synth.polynomial import Poly
from tessel.passes.he.synth.program import Program
from tessel.passes.he.synth.sketch import Example, Sketch, SketchShape
from tessel.passes.he.synth.slots import SupportDomain, classes, reach
from tessel.passes.he.synth.spec import Spec

SAT, UNSAT, TIMEOUT = "sat", "unsat", "timeout"

# z3's global context, made once on import rather than lazily inside the first query: the
# tools stop cleanly on SIGTERM by raising in the main thread, and a signal that lands while
# z3 is still constructing its context leaves a half-made one whose destructor prints a
# traceback at exit (the structured programs mean z3's first use can come late in a run).
z3.main_ctx()


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
    added: set[tuple[int, int]] = field(default_factory=set)  # (example, slot) pairs in `constraints`


@dataclass
class SearchResult:
    program: Program | None
    cost: int
    depth_bound: int
    optimal: bool  # no program of the sketch of at most proven_length operations is cheaper
    proven_length: int  # lengths 1..proven_length fully decided (0: none)
    shortest: int  # the length of the best program (0 if none)
    seconds: float
    rounds: int  # synthesis queries answered
    examples: int
    timed_out: bool
    lower_bound: int = 0  # the least cost any longer program could have
    bounded: bool = False  # the lower bound met the best cost: no program of any length is cheaper
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

    def add(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return a + b

    def sub(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return a - b

    def mul(self, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        return a * b

    def neg(self, a: z3.BitVecRef) -> z3.BitVecRef:
        return -a


def difference(spec: Spec, program: Program, slot: int) -> Poly:
    """spec - program at one slot, as a polynomial over Z_t (zero iff they agree there)."""
    domain = spec.poly_domain()
    return domain.sub(spec.evaluator(domain)(slot), program.evaluator(domain)(slot))


def exact_equal(spec: Spec, program: Program, slots: Sequence[int]) -> bool:
    """Program == spec at these slots as polynomials over Z_t (exact, for all inputs)."""
    return all(not difference(spec, program, p).terms for p in slots)


def wrong_slot(spec: Spec, program: Program, checked: Sequence[int]) -> int | None:
    """An output slot that matters where the program differs from the spec, or None when it
    is right at all of them: the checked slots, then (with zero padding) one slot per class
    of the slots that matter under both the spec's and the program's reach."""
    for p in checked:
        if difference(spec, program, p).terms:
            return p
    zero = spec.zero_masks
    if not zero:
        return None  # rotation equivariance: one slot decides them all
    offsets: dict[int, set[int]] = {}
    for evaluator in (spec.evaluator(SupportDomain()), program.evaluator(SupportDomain())):
        for i, o in reach(evaluator, 0, spec.slots).items():
            offsets.setdefault(i, set()).update(o)
    for group in classes(spec.all_output_slots(), zero, offsets, spec.slots):
        if not set(group) & set(checked) and difference(spec, program, group[0]).terms:
            return group[0]
    return None


class Search:
    def __init__(
        self,
        spec: Spec,
        shape: SketchShape,
        *,
        budget_s: float,
        seed: int = 0,
        progress: Callable[[str], None] | None = None,
        deadline: float | None = None,
    ):
        self.spec, self.shape = spec, shape
        self.start = time.monotonic()
        self.deadline = deadline if deadline is not None else self.start + budget_s
        self.slots: list[int] = list(spec.check_slots())  # output slots the examples constrain
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
        domain = self.spec.poly_domain()
        support: set[tuple[int, int]] = set()
        at = self.spec.evaluator(domain)
        for p in self.slots:
            support |= at(p).variables()
        return support

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def counterexample(self, program: Program) -> Example | None:
        """None when the program equals the spec exactly (mod t, all inputs) at every slot
        that matters. Otherwise z3 searches, at the slot width, for an input on which they
        differ, restricted to the variables of one monomial of their difference (a sparse
        counterexample); a slot of another padding class where it is wrong joins the checked
        slots. The exception BlockProgram means they differ mod t but agree at the slot width."""
        bad = wrong_slot(self.spec, program, self.slots)
        if bad is None:
            return None
        if bad not in self.slots:
            self.slots.append(bad)
        diffs = [difference(self.spec, program, p) for p in self.slots]
        monomials = sorted({m for d in diffs for m, _ in d.terms}, key=lambda m: (len(m), m))
        supports = [{v for v, _ in m} for m in monomials]
        supports.append(set().union(*supports))
        for support in supports:
            domain = Z3Domain(self.shape.width, support)
            want, got = self.spec.evaluator(domain), program.evaluator(domain)
            solver = z3.SolverFor("QF_BV")
            solver.set("timeout", max(1, self.remaining_ms()))
            solver.add(z3.Or([want(p) != got(p) for p in self.slots]))
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
            for e, values in enumerate(self.examples):
                for p in self.slots:
                    if (e, p) not in state.added:
                        if self.expired():
                            return Outcome(TIMEOUT)
                        state.constraints.append(sketch.example(values, p))
                        state.added.add((e, p))
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

    def run(
        self,
        min_length: int,
        max_length: int,
        depth: int,
        costs: dict[str, int],
        lower_cost: Callable[[int], int],
        best: Program | None = None,
        extra_length: int = 0,
    ) -> SearchResult:
        """Search lengths min_length.. for programs cheaper than `best` (a verified program,
        or None); `lower_cost(L)`: the least cost of any program of length L."""
        best_cost = best.cost(costs) if best is not None else None
        shortest = len(best.components) if best is not None else 0
        proven = min_length - 1  # every length <= proven is decided (shorter ones by the lower bound)
        timed_out = False
        sketches: dict[int, tuple[Sketch, SketchState]] = {}

        def sketch_for(length: int) -> tuple[Sketch, SketchState]:
            if length not in sketches:
                sk = Sketch(self.spec, self.shape, length, depth, costs)
                sketches[length] = (sk, SketchState(sk.constraints()))
            return sketches[length]

        def stop() -> int:
            return max_length if best is None else min(max_length, max(shortest, min_length) + extra_length)

        self.say(
            f"depth <= {depth}, lengths {min_length}..{max_length}, {len(self.shape.ops)} ops "
            f"({', '.join(self.shape.ops)}), rotations {list(self.shape.rotations[1:])}"
        )
        if best is not None:
            self.say(f"structured program: {len(best.components)} operations, cost {best_cost} ({_counts(best)})")
        length = min_length
        while length <= stop():
            if best_cost is not None and lower_cost(length) >= best_cost:
                self.say(f"length {length}: no program can cost less than {lower_cost(length)}; the best is optimal")
                proven = max_length
                break
            if self.expired():
                self.say(f"length {length}: budget exhausted")
                timed_out = True
                break
            sk, state = sketch_for(length)
            bound = None if best_cost is None else best_cost - 1
            self.say(f"length {length}: " + ("searching" if bound is None else f"searching for cost <= {bound}"))
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
            best, best_cost = outcome.program, outcome.cost
            shortest = length
            self.say(f"length {length}: found cost {best_cost} ({_counts(best)}); tightening")
            # stay at this length: the next query asks for something cheaper
        floor = lower_cost(proven + 1)
        bounded = best_cost is not None and floor >= best_cost
        return SearchResult(
            program=best,
            cost=0 if best_cost is None else best_cost,
            depth_bound=depth,
            optimal=best_cost is not None and (bounded or (not timed_out and proven >= stop())),
            proven_length=min(proven, max_length),
            shortest=shortest,
            seconds=time.monotonic() - self.start,
            rounds=self.rounds,
            examples=len(self.examples),
            timed_out=timed_out,
            lower_bound=floor,
            bounded=bounded,
            log=self.log,
        )


def _counts(program: Program) -> str:
    c = program.counts()
    return f"{c['rotate']} rot, {c['multiply']} mul, {c['multiply_plain']} mul_plain"
