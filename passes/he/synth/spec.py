"""A kernel spec as the synthesizer sees it: a DAG of slot-vector operations, the inputs'
layout, and which output slots matter.

The spec is read from a `hev.spec` function (see `tessel.dialects.hev`). Everything here is
*equivariant*: element-wise arithmetic, splat constants, cyclic shifts and full-vector sums
commute with rotating all inputs, and so does every program the sketch can express. Hence
checking one output slot for all inputs checks every slot (`check_slots`, `slots.py`),
which keeps the z3 queries small even at 4096 slots and makes an output mask cost nothing:
only the slots that output slot reads are ever built. A zero-padded input (`hev.padded`)
is 0 outside its region; then one slot per class of alike slots is checked.

Evaluation is the dialect's own semantics of the spec function
(`tessel.dialects.hev.reference.slot_evaluator`), generic over a *domain* (concrete integers
mod m, z3 bit-vectors, exact polynomials) and lazy per slot.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation

from tessel.dialects import hev
from tessel.dialects.hev import kernel
from tessel.dialects.hev.metrics import normalize_rotation
from tessel.dialects.hev.reference import Domain, slot_evaluator
from tessel.ir.diagnostics import TesselError, op_location
from tessel.passes.he.synth.polynomial import PolyDomain
from tessel.passes.he.synth.slots import SupportDomain, classes, reach

# Node kinds.
INPUT, CONST, SHIFT, ADD, SUB, MUL, NEG, SUM = "input", "const", "shift", "add", "sub", "mul", "neg", "sum"


@dataclass(frozen=True)
class Node:
    kind: str
    args: tuple[int, ...] = ()
    value: int = 0  # the input index, constant, or shift offset


@dataclass(frozen=True)
class Input:
    name: str
    secret: bool = True  # encrypted (a ciphertext) or public (a plaintext the server holds)
    boolean: bool = False  # every slot is 0 or 1 (hev.domain = "bits")
    image: tuple[int, int] | None = None  # (height, width), row-major in the slots
    data: np.ndarray | None = None  # zero-padded layout: True where a slot may hold data


@dataclass
class Spec:
    name: str
    slots: int
    plain_modulus: int
    inputs: list[Input]
    nodes: list[Node]
    output: int
    output_slots: tuple[int, ...] | None = None  # None: every slot matters
    location: str | None = None
    function: Any = None  # the hev.spec func.func this was read from (its semantics)
    values: list[Any] = field(default_factory=list, repr=False)  # node -> its SSA value in `function`
    _check_slots: tuple[int, ...] | None = field(default=None, repr=False)
    _public_cache: dict[int, bool] = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ structure

    @property
    def secret_inputs(self) -> list[int]:
        return [i for i, inp in enumerate(self.inputs) if inp.secret]

    @property
    def public_inputs(self) -> list[int]:
        return [i for i, inp in enumerate(self.inputs) if not inp.secret]

    @property
    def boolean_inputs(self) -> list[int]:
        return [i for i, inp in enumerate(self.inputs) if inp.boolean]

    def is_public(self, node: int) -> bool:
        """True when a node depends on no secret input (constants and public inputs only)."""
        if node not in self._public_cache:
            n = self.nodes[node]
            if n.kind == INPUT:
                result = not self.inputs[n.value].secret
            elif n.kind == CONST:
                result = True
            else:
                result = all(self.is_public(a) for a in n.args)
            self._public_cache[node] = result
        return self._public_cache[node]

    def live_nodes(self) -> list[int]:
        """Nodes the output depends on, in order."""
        live = {self.output}
        for i in range(self.output, -1, -1):
            if i in live:
                live.update(self.nodes[i].args)
        return sorted(live)

    @property
    def zero_masks(self) -> dict[int, np.ndarray]:
        """input -> True at its zero-padded slots (only inputs with a padded layout)."""
        return {i: ~inp.data for i, inp in enumerate(self.inputs) if inp.data is not None}

    def is_zero(self, input: int, slot: int) -> bool:
        data = self.inputs[input].data
        return data is not None and not data[slot % self.slots]

    def poly_domain(self) -> PolyDomain:
        """Exact slot values mod t, with the padding substituted by 0."""
        zero = self.is_zero if self.zero_masks else None
        return PolyDomain(self.plain_modulus, self.boolean_inputs, zero)

    def check_slots(self) -> tuple[int, ...]:
        """One output slot per class of the slots that matter (`slots.classes`): a single
        slot unless an input is zero-padded, since spec and program are rotation-equivariant."""
        if self._check_slots is None:
            wanted = self.all_output_slots()
            offsets = reach(self.evaluator(SupportDomain()), 0, self.slots) if self.zero_masks else {}
            self._check_slots = tuple(c[0] for c in classes(wanted, self.zero_masks, offsets, self.slots))
        return self._check_slots

    def all_output_slots(self) -> tuple[int, ...]:
        return self.output_slots if self.output_slots is not None else tuple(range(self.slots))

    def constants(self) -> list[int]:
        """Splat constants the spec uses as operands, reduced mod t (sketch plaintexts)."""
        seen: list[int] = []
        for n in self.nodes:
            if n.kind == CONST and n.value % self.plain_modulus not in seen:
                seen.append(n.value % self.plain_modulus)
        return seen

    def shift_offsets(self) -> list[int]:
        """The offsets of every slot an output slot reads, relative to it (composed shifts)."""
        offsets: dict[int, set[int]] = {}

        def visit(i: int) -> set[int]:
            if i in offsets:
                return offsets[i]
            n = self.nodes[i]
            if n.kind in (INPUT, CONST):
                out = {0}
            elif n.kind == SHIFT:
                out = {o + n.value for o in visit(n.args[0])}
            elif n.kind == SUM:
                out = {0}  # reductions get power-of-two rotations instead
            else:
                out = set().union(*(visit(a) for a in n.args))
            offsets[i] = out
            return out

        return sorted(visit(self.output))

    def nonzero(self, node: int) -> np.ndarray:
        """True at the slots where the node's value may be non-zero (zero padding propagated:
        a shift moves it, a product needs both operands, a sum fills every slot)."""
        n = self.nodes[node]
        if n.kind == INPUT:
            data = self.inputs[n.value].data
            return np.ones(self.slots, dtype=bool) if data is None else data.copy()
        if n.kind == CONST:
            return np.full(self.slots, n.value % self.plain_modulus != 0)
        args = [self.nonzero(a) for a in n.args]
        if n.kind == SHIFT:
            return np.roll(args[0], -n.value)
        if n.kind == MUL:
            return args[0] & args[1]
        if n.kind == SUM:
            return np.full(self.slots, bool(args[0].any()))
        out = args[0].copy()
        for a in args[1:]:
            out |= a
        return out

    def nonzero_window(self, node: int) -> tuple[int, int] | None:
        """(first offset, size) of the shortest cyclic window, relative to the first checked
        output slot, outside which the node's value is zero; None when it fills the vector."""
        offsets = sorted(int(q - self.check_slots()[0]) % self.slots for q in np.flatnonzero(self.nonzero(node)))
        if not offsets or len(offsets) == self.slots:
            return None
        gaps = [
            ((offsets[(k + 1) % len(offsets)] - offsets[k]) % self.slots or self.slots, k) for k in range(len(offsets))
        ]
        gap, k = max(gaps)
        start = offsets[(k + 1) % len(offsets)]
        return normalize_rotation(start, self.slots), self.slots - gap + 1

    def has_sum(self) -> bool:
        return any(n.kind == SUM for n in self.nodes)

    # ------------------------------------------------------------------ evaluation

    def evaluator(self, domain: Domain, node: int | None = None) -> Callable[[int], Any]:
        """slot -> value of the output (or of `node`) at that slot, lazily and memoized: the
        dialect's semantics of the spec function itself (`reference.slot_evaluator`)."""
        assert self.function is not None, "a Spec evaluates the function it was read from"
        return slot_evaluator(self.function, domain, self.slots, None if node is None else self.values[node])


def ceil_log2(x: int) -> int:
    return max(0, math.ceil(math.log2(x))) if x > 0 else 0


# --------------------------------------------------------------------------- from IR


def from_function(fn: Any) -> Spec:
    """The Spec of a `hev.spec` function; a TesselError (at the op) for what is not one."""
    assert isinstance(fn, func.FuncOp)
    iface = kernel.interface(fn)
    inputs = [
        Input(
            a.name, not a.public, a.domain == "bits", a.image, None if a.padded is None else a.data_slots(iface.slots)
        )
        for a in iface.arguments
    ]
    nodes: list[Node] = [Node(INPUT, value=i) for i in range(len(inputs))]
    index: dict[Any, int] = {arg: i for i, arg in enumerate(fn.body.blocks[0].args)}
    ops_of: dict[int, Any] = {}
    kinds: dict[type[Operation], str] = {
        hev.SpecAddOp: ADD,
        hev.SpecSubOp: SUB,
        hev.SpecMulOp: MUL,
        hev.SpecNegOp: NEG,
        hev.SpecSumOp: SUM,
    }
    output: int | None = None
    for op in fn.body.walk():
        if op is fn:
            continue
        where = op_location(op) or op_location(fn)
        if isinstance(op, func.ReturnOp):
            output = index[op.operands[0]]
            continue
        if isinstance(op, hev.SpecConstOp):
            nodes.append(Node(CONST, value=op.value.value.data))
        elif isinstance(op, hev.SpecShiftOp):
            nodes.append(Node(SHIFT, (index[op.input],), op.amount))
        elif type(op) in kinds:
            nodes.append(Node(kinds[type(op)], tuple(index[o] for o in op.operands)))
        else:
            raise TesselError(
                f"'{op.name}' cannot appear in spec @{iface.name}: a spec is written with hev.spec.* ops", where
            )
        index[op.results[0]] = len(nodes) - 1
        ops_of[len(nodes) - 1] = op
    assert output is not None
    spec = Spec(
        iface.name, iface.slots, iface.plain_modulus, inputs, nodes, output, iface.output_slots, op_location(fn), fn
    )
    spec.values = [v for v, _ in sorted(index.items(), key=lambda kv: kv[1])]
    if spec.is_public(output):
        raise TesselError(
            f"spec @{iface.name}: the result depends on no secret input; there is nothing to encrypt", spec.location
        )
    for i in spec.live_nodes():
        n = nodes[i]
        if n.kind not in (INPUT, CONST) and spec.is_public(i):
            raise TesselError(
                f"'{ops_of[i].name}' computes on public values only (hev.public inputs and constants); "
                "a BFV program cannot: precompute it outside the kernel",
                op_location(ops_of[i]) or spec.location,
            )
    return spec
