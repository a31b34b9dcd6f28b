"""Exact verification of a `hev` program against its spec, on the IR itself.

Both functions are evaluated slot by slot as polynomials over Z_t (`polynomial.py`): the
program is correct exactly when, at every output slot that matters, the two polynomials are
equal. Each slot is evaluated lazily, so a 4096-slot image kernel costs a few thousand small
polynomials. This check does not trust the synthesizer's internal model: it reads the IR
that will run on SEAL.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from tessel.dialects import hev
from tessel.dialects.hev import kernel
from tessel.ir.diagnostics import TesselError, op_location
from tessel.passes.he.polynomial import PolyDomain
from tessel.passes.he.spec import Domain

_BINARY = {
    hev.AddOp: "add", hev.AddPlainOp: "add", hev.SpecAddOp: "add",
    hev.SubOp: "sub", hev.SubPlainOp: "sub", hev.SpecSubOp: "sub",
    hev.MultiplyOp: "mul", hev.MultiplyPlainOp: "mul", hev.SpecMulOp: "mul",
}
_IDENTITY = (hev.EncryptOp, hev.EncodeOp, hev.DecryptOp, hev.RelinearizeOp, hev.ModSwitchOp)


def slot_evaluator(fn: func.FuncOp, domain: Domain, slots: int) -> Callable[[int], Any]:
    """slot -> the function's output at that slot, over `domain` (lazy, memoized)."""
    args = {a: i for i, a in enumerate(fn.body.blocks[0].args)}
    memo: dict[tuple[SSAValue, int], Any] = {}
    (ret,) = [op for op in fn.body.blocks[0].ops if isinstance(op, func.ReturnOp)]

    def at(v: SSAValue, slot: int) -> Any:
        key = (v, slot)
        if key in memo:
            return memo[key]
        if v in args:
            r = domain.var(args[v], slot)
        else:
            op = v.owner
            assert isinstance(op, Operation)
            kind = type(op)
            if kind in _BINARY:
                r = getattr(domain, _BINARY[kind])(at(op.operands[0], slot), at(op.operands[1], slot))
            elif kind in _IDENTITY:
                r = at(op.operands[0], slot)
            elif kind in (hev.NegateOp, hev.SpecNegOp):
                r = domain.neg(at(op.operands[0], slot))
            elif kind in (hev.RotateOp, hev.SpecShiftOp):
                r = at(op.operands[0], (slot + op.amount) % slots)  # type: ignore[attr-defined]
            elif kind in (hev.ConstantOp, hev.SpecConstOp):
                r = domain.const(op.value.value.data)  # type: ignore[attr-defined]
            elif kind is hev.SpecSumOp:
                r = at(op.operands[0], 0)
                for j in range(1, slots):
                    r = domain.add(r, at(op.operands[0], j))
            else:
                raise TesselError(f"'{op.name}' has no slot semantics", op_location(op))
        memo[key] = r
        return r

    return lambda slot: at(ret.operands[0], slot % slots)


def check_structure(program: func.FuncOp, spec: func.FuncOp) -> None:
    """The program has the spec's interface; secrets enter encrypted, public data encoded,
    and the result leaves through hev.decrypt. A TesselError names what is wrong."""
    name = f"@{program.sym_name.data}"
    ps, ss = kernel.interface(program), kernel.interface(spec)
    if program.function_type != spec.function_type:
        raise TesselError(
            f"{name} has type {program.function_type}, its spec @{ss.name} has {spec.function_type}",
            op_location(program),
        )
    for i, (pa, sa) in enumerate(zip(ps.arguments, ss.arguments, strict=True)):
        if (pa.public, pa.domain, pa.image) != (sa.public, sa.domain, sa.image):
            raise TesselError(
                f"{name}: argument #{i} is declared differently from the spec @{ss.name} "
                "(hev.public, hev.domain and hev.image must match)",
                op_location(program),
            )
    if ps.output_slots != ss.output_slots or ps.plain_modulus != ss.plain_modulus:
        raise TesselError(f"{name}: hev.slots and hev.plain_modulus must match the spec @{ss.name}", op_location(program))
    block = program.body.blocks[0]
    order = {op: k for k, op in enumerate(block.ops)}
    for i, (arg, a) in enumerate(zip(block.args, ps.arguments, strict=True)):
        want = hev.EncodeOp if a.public else hev.EncryptOp
        for use in sorted(arg.uses, key=lambda u: order.get(u.operation, -1)):
            if not isinstance(use.operation, want):
                what = "public (hev.public): encode it with hev.encode" if a.public else "secret: encrypt it with hev.encrypt"
                raise TesselError(f"{name}: argument #{i} is {what}, not '{use.operation.name}'", op_location(use.operation))
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            if not isinstance(op.operands[0].owner, hev.DecryptOp):
                raise TesselError(f"{name} must return the result of hev.decrypt", op_location(op))
        elif type(op) not in hev.PROGRAM_OPS:
            raise TesselError(f"'{op.name}' cannot appear in program {name}: a program is written with hev program ops", op_location(op))


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
    check_structure(program, spec)
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
