"""Exact verification of a `hev` program against its spec, on the IR itself.

Both functions are evaluated slot by slot as polynomials over Z_t (`polynomial.py`, through
the dialect's per-slot semantics, `tessel.dialects.hev.reference.slot_evaluator`): the
program is correct exactly when, at every output slot that matters, the two polynomials are
equal. Each slot is evaluated lazily, so a 4096-slot image kernel costs a few thousand small
polynomials. This check does not trust the synthesizer's internal model: it reads the IR
that will run on SEAL.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects.hev import kernel
from tessel.dialects.hev.reference import slot_evaluator
from tessel.passes.he.synth.polynomial import PolyDomain


@dataclass(frozen=True)
class Verdict:
    ok: bool
    slots_checked: int
    first_bad_slot: int | None
    seconds: float

    def summary(self, t: int) -> str:
        if self.ok:
            return f"verified exactly mod {t} at {self.slots_checked} output slots ({self.seconds:.2f} s)"
        return f"WRONG at output slot {self.first_bad_slot} (exact check mod {t})"


def verify(module: ModuleOp, program: func.FuncOp) -> Verdict:
    """Check a program against the spec it implements, exactly, at every slot that matters."""
    spec = kernel.spec_of(module, program)
    kernel.check_structure(program, spec)
    iface = kernel.interface(spec)
    boolean = [i for i, a in enumerate(iface.arguments) if a.domain == "bits"]
    start = time.perf_counter()
    domain = PolyDomain(iface.plain_modulus, boolean)
    want = slot_evaluator(spec, domain, iface.slots)
    got = slot_evaluator(program, domain, iface.slots)
    slots = iface.output_slots if iface.output_slots is not None else range(iface.slots)
    count = 0
    for p in slots:
        count += 1
        if want(p) != got(p):
            return Verdict(False, count, p, time.perf_counter() - start)
    return Verdict(True, count, None, time.perf_counter() - start)
