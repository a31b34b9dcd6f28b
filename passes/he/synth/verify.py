"""Exact verification of a `hev` program against its spec, on the IR itself.

Both functions are evaluated slot by slot as polynomials over Z_t (`polynomial.py`, through
the dialect's per-slot semantics, `tessel.dialects.hev.reference.slot_evaluator`): the
program is correct exactly when, at every output slot that matters, the two polynomials are
equal. Every hev op commutes with rotating all inputs, so one slot per class of alike slots
decides the class (`slots.py`): one slot in all when no input is zero-padded, one per
padding pattern otherwise. The check reads the IR that will run on SEAL, not the
synthesizer's internal model, and says how many slots it covered and how many it expanded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects.hev import kernel
from tessel.dialects.hev.reference import slot_evaluator
from tessel.passes.he.synth.polynomial import PolyDomain
from tessel.passes.he.synth.slots import SupportDomain, classes, reach


@dataclass(frozen=True)
class Verdict:
    ok: bool
    slots_checked: int  # output slots covered
    first_bad_slot: int | None
    seconds: float
    classes: int = 0  # slots expanded: one per class

    def summary(self, t: int) -> str:
        if not self.ok:
            return f"WRONG at output slot {self.first_bad_slot} (exact check mod {t})"
        how = "" if self.classes == self.slots_checked else f"{self.classes} expanded, the others alike by rotation; "
        return f"verified exactly mod {t} at {self.slots_checked} output slots ({how}{self.seconds:.2f} s)"


def verify(module: ModuleOp, program: func.FuncOp) -> Verdict:
    """Check a program against the spec it implements, exactly, at every slot that matters."""
    spec = kernel.spec_of(module, program)
    kernel.check_structure(program, spec)
    iface = kernel.interface(spec)
    n = iface.slots
    start = time.perf_counter()
    zero = {i: ~a.data_slots(n) for i, a in enumerate(iface.arguments) if a.padded is not None}

    def is_zero(i: int, slot: int) -> bool:
        return i in zero and bool(zero[i][slot % n])

    boolean = [i for i, a in enumerate(iface.arguments) if a.domain == "bits"]
    domain = PolyDomain(iface.plain_modulus, boolean, is_zero if zero else None)
    want = slot_evaluator(spec, domain, n)
    got = slot_evaluator(program, domain, n)
    wanted = list(iface.output_slots) if iface.output_slots is not None else list(range(n))
    offsets: dict[int, set[int]] = {}
    if zero:
        for fn in (spec, program):
            for i, o in reach(slot_evaluator(fn, SupportDomain(), n), 0, n).items():
                offsets.setdefault(i, set()).update(o)
    groups = classes(wanted, zero, offsets, n)
    for group in groups:
        if want(group[0]) != got(group[0]):
            return Verdict(False, len(wanted), group[0], time.perf_counter() - start, len(groups))
    return Verdict(True, len(wanted), None, time.perf_counter() - start, len(groups))
