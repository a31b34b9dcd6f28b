"""`he-synthesize`: for every `hev.spec` function, synthesize a verified BFV program.

    tessel-opt box_blur.mlir -p 'he-synthesize{budget=60}'

adds `@box_blur_synth` (attributes `hev.implements = @box_blur`, the spec's
`hev.plain_modulus`, and `hev.synthesis = {cost, cost_params, optimal, proven_length,
lower_bound}`) after each spec `@box_blur`. The modules are in `tessel.passes.he.synth`:

1. the spec as the synthesizer sees it (`spec.py`; the slots a check must cover under an
   output mask or a zero-padded layout, `slots.py`), and its sketch (`restrict.py`);
2. structured programs straight from the spec (`lower.py`, `stencil.py`: factored stencils,
   log trees, completed squares, Horner), verified exactly: the best is the upper bound;
3. lower bounds (`bounds.py`: rotations by subset-sum cover, multiplications, length) and
   the cost any program of a length must have;
4. CEGIS over Porcupine's local-rotate sketch (`sketch.py`, `cegis.py`), length by length,
   for programs cheaper than the best, until the lower bound meets it (optimal at every
   length), the lengths `extra-length` past the best are decided, or the budget runs out;
5. emission (`emit.py`) and the exact re-verification of the emitted IR (`verify.py`).
Costs are the measured latencies (`tessel.dialects.hev.costs`) in 10 us units at the
cheapest parameter set the spec's depth needs. The budget holds in every phase.

Options: kernel=NAME (one spec only), budget (seconds per kernel), max-length, extra-length
(lengths searched past the best program's when the bounds do not stop the search), width
(bits per slot in z3), seed, progress (lines on stderr), costs (a cost table other than the
shipped one), cache (a folder for finished programs: a rerun skips them).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from functools import partial

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tessel.dialects.hev import costs as cost_table
from tessel.dialects.hev import kernel
from tessel.ir.diagnostics import TesselError
from tessel.ir.results_cache import ResultsCache, cache_folder
from tessel.ir.source import parse_module, print_module
from tessel.passes.he.model.choice import costs_for_depth
from tessel.passes.he.synth import restrict
from tessel.passes.he.synth.bounds import bounds
from tessel.passes.he.synth.cegis import Search, SearchResult, wrong_slot
from tessel.passes.he.synth.emit import emit_program
from tessel.passes.he.synth.lower import structured_programs
from tessel.passes.he.synth.program import ALL_OPS, ROTATE, Component, Operand, Program
from tessel.passes.he.synth.sketch import SketchShape
from tessel.passes.he.synth.spec import INPUT, SHIFT, Spec, from_function
from tessel.passes.he.synth.verify import verify

SUFFIX = "_synth"
SYNTHESIS = "hev.synthesis"


@dataclass(frozen=True)
class HeSynthesize(ModulePass):
    name = "he-synthesize"

    kernel: str = ""
    budget: float | int = 60.0  # `budget=20` is as natural as `budget=20.0`
    max_length: int = 8
    extra_length: int = 0
    width: int = 4
    seed: int = 0
    progress: bool = True
    costs: str = ""
    cache: str = ""  # a folder for finished programs (default $TESSEL_CACHE_DIR): a rerun skips them

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        specs = kernel.specs(op)
        if self.kernel:
            specs = [s for s in specs if s.sym_name.data == self.kernel]
            if not specs:
                raise TesselError(f"he-synthesize: no spec function @{self.kernel} in the module")
        if self.budget <= 0 or self.max_length < 1 or not 2 <= self.width <= 32:
            raise TesselError("he-synthesize: budget must be > 0, max-length >= 1 and width in 2..32")
        table = cost_table.load(self.costs) if self.costs else cost_table.load()
        folder = cache_folder(self.cache)
        cache = ResultsCache(folder, "he-synthesize") if folder is not None else None
        for spec_fn in specs:
            name = spec_fn.sym_name.data + SUFFIX
            if kernel.lookup(op, name) is not None:
                continue
            key = self._cache_key(spec_fn)
            fn = self._from_cache(ctx, op, spec_fn, name, cache, key)
            if fn is None:
                program, summary = self.synthesize(spec_fn, table)
                fn = emit_program(spec_fn, program, name, {SYNTHESIS: summary})
                Rewriter.insert_op(fn, InsertPoint.after(spec_fn))
                verdict = verify(op, fn)
                if not verdict.ok:  # pragma: no cover - the search verifies first; this guards emission
                    raise TesselError(
                        f"he-synthesize: @{name} failed the exact check at slot {verdict.first_bad_slot}; this is a Tessel bug"
                    )
                if cache is not None:
                    cache.put(key, print_module(fn))
                self._say(f"@{spec_fn.sym_name.data}: {verdict.summary(kernel.interface(spec_fn).plain_modulus)}")

    # ------------------------------------------------------------------ the results cache

    def _cache_key(self, spec_fn: func.FuncOp) -> str:
        """Everything the program depends on: the spec's text, the search options and the
        cost table (not `progress`, which only prints)."""
        costs = ""
        if self.costs:
            try:
                costs = open(self.costs).read()
            except OSError:
                costs = self.costs
        options = repr((self.budget, self.max_length, self.extra_length, self.width, self.seed))
        return ResultsCache.key(print_module(spec_fn), options, costs)

    def _from_cache(
        self, ctx: Context, module: ModuleOp, spec_fn: func.FuncOp, name: str, cache: ResultsCache | None, key: str
    ) -> func.FuncOp | None:
        """The cached program, inserted after its spec and re-verified exactly; None (and the
        entry dropped) when there is none or it does not parse or verify."""
        text = cache.get(key) if cache is not None else None
        if cache is None or text is None:
            return None
        try:
            fn = parse_module(ctx, text, str(cache.path(key))).body.block.first_op
            if not isinstance(fn, func.FuncOp) or fn.sym_name.data != name:
                raise TesselError("not the program of this spec")
            fn.detach()
            Rewriter.insert_op(fn, InsertPoint.after(spec_fn))
            verdict = verify(module, fn)
        except TesselError:
            cache.discard(key)
            return None
        if not verdict.ok:
            fn.detach()
            fn.erase()
            cache.discard(key)
            return None
        self._say(
            f"@{spec_fn.sym_name.data}: from the cache ({cache.path(key).name}); {verdict.summary(kernel.interface(spec_fn).plain_modulus)}"
        )
        return fn

    # ------------------------------------------------------------------

    def _say(self, line: str) -> None:
        if self.progress:
            print(f"he-synthesize: {line}", file=sys.stderr, flush=True)

    def synthesize(self, spec_fn: func.FuncOp, table: cost_table.CostTable) -> tuple[Program, DictionaryAttr]:
        deadline = time.monotonic() + self.budget
        spec = from_function(spec_fn)
        trivial = _trivial_program(spec)
        if trivial is not None:
            return trivial, DictionaryAttr({"cost": IntegerAttr(0, 64), "optimal": BoolAttr.from_bool(True)})
        shape = restrict.sketch_shape(spec, self.width)
        lower = bounds(spec, shape.rotations[1:], deadline=deadline)
        if lower.min_length > self.max_length:
            raise TesselError(
                f"he-synthesize: @{spec.name} needs at least {lower.min_length} operations "
                f"(its output reads {lower.support} input slots), more than max-length={self.max_length}",
                spec.location,
            )
        entries = {}
        progress = (lambda line: self._say(line)) if self.progress else None
        result: SearchResult | None = None
        search_shape = shape
        for depth in range(lower.min_depth, lower.min_depth + 2):
            try:
                entries[depth], costs = costs_for_depth(table, spec.slots, spec.plain_modulus, depth)
            except TesselError as err:
                raise TesselError(f"he-synthesize: @{spec.name}: {err.message}", spec.location) from None
            best = self._structured(spec, costs, shape, depth, deadline)
            search_shape = widened(shape, best) if best is not None else shape
            if best is not None:
                # the rotation bound only needs proving below the structured program's count
                lower = bounds(spec, search_shape.rotations[1:], len(best.rotations()), deadline)
            search = Search(
                spec, search_shape, budget_s=self.budget, seed=self.seed, progress=progress, deadline=deadline
            )
            ops = search_shape.ops
            result = search.run(
                lower.min_length,
                self.max_length,
                depth,
                costs,
                partial(lower.cost, units=costs, ops=ops, rotations=len(search_shape.rotations) > 1),
                best,
                self.extra_length,
            )
            if result.program is not None or result.timed_out:
                break
        assert result is not None
        if result.program is None:
            if result.timed_out:
                raise TesselError(
                    f"he-synthesize: no program for @{spec.name} within the budget of {self.budget:g} s "
                    f"(lengths up to {result.proven_length} have none); raise budget",
                    spec.location,
                )
            raise TesselError(
                f"he-synthesize: unsatisfiable: no program of at most {self.max_length} operations computes "
                f"@{spec.name} with {', '.join(search_shape.ops)} and rotations {list(search_shape.rotations[1:])} "
                f"(z3 proved every length from {lower.min_length}); raise max-length or check the spec",
                spec.location,
            )
        entry = entries[result.depth_bound]
        summary: dict[str, Attribute] = {
            "cost": IntegerAttr(result.cost * 10, 64),  # microseconds at the parameters below
            "cost_params": StringAttr(entry.params.name),
            "optimal": BoolAttr.from_bool(result.optimal),
            "proven_length": IntegerAttr(result.proven_length, 64),
            "lower_bound": IntegerAttr(min(result.lower_bound, result.cost) * 10, 64),
        }
        if result.bounded:
            verdict = "optimal (proven: the lower bound meets it)"
        elif result.optimal:
            verdict = f"optimal among programs of at most {result.proven_length} operations (proven)"
        else:
            verdict = f"optimality not proven (lengths <= {result.proven_length} decided)"
        self._say(
            f"@{spec.name}: {len(result.program.components)} operations, cost {result.cost * 10} us at {entry.params.name}, "
            + verdict
            + f", {result.seconds:.1f} s, {result.rounds} z3 queries, {result.examples} examples"
        )
        return result.program, DictionaryAttr(summary)

    def _structured(
        self, spec: Spec, costs: dict[str, int], shape: SketchShape, depth: int, deadline: float
    ) -> Program | None:
        """The cheapest structured program (`lower.py`) that is exactly right, within the
        depth bound and max-length; None when there is none (or no time to build one)."""
        best: Program | None = None
        for candidate in structured_programs(spec, costs, shape.rotations[1:], deadline):
            if len(candidate.components) > self.max_length or candidate.depth() > depth:
                continue
            if time.monotonic() > deadline or wrong_slot(spec, candidate, spec.check_slots()) is not None:
                continue
            if best is None or candidate.cost(costs) < best.cost(costs):
                best = candidate
        return best


def widened(shape: SketchShape, program: Program) -> SketchShape:
    """The sketch with the operations, rotation amounts and plaintexts a program uses, so that
    the search's claims (optimal in the sketch) cover the program it starts from."""
    ops = tuple(o for o in ALL_OPS if o in shape.ops or any(c.op == o for c in program.components))
    amounts = list(shape.rotations)
    for _, r in program.rotations():
        if r not in amounts:
            amounts.append(r)
    plain = tuple(shape.plain_sources) + tuple(p for p in program.plain_sources if p not in shape.plain_sources)
    return replace(shape, ops=ops, rotations=tuple(amounts), plain_sources=plain)


def _trivial_program(spec: Spec) -> Program | None:
    """A spec whose output is a secret input, maybe shifted: no arithmetic to synthesize."""
    node = spec.nodes[spec.output]
    offset = 0
    while node.kind == SHIFT:
        offset += node.value
        node = spec.nodes[node.args[0]]
    if node.kind != INPUT or not spec.inputs[node.value].secret:
        return None
    offset %= spec.slots
    if not offset:
        raise TesselError(f"spec @{spec.name} returns its input unchanged; there is nothing to compute", spec.location)
    return Program(spec.slots, [node.value], [], [Component(ROTATE, Operand(0, offset))], [False])
