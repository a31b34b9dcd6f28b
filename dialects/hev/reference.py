"""Reference semantics of `hev`: every value is a vector of integers mod t.

Encryption is invisible here: a ciphertext, a plaintext and a cleartext vector all mean
their slot values, and relinearize / mod_switch are the identity. This is the oracle for
programs (SEAL must decrypt to it), for specs, and for the differential tests of passes.

The meaning of each op is written once, in the tables below, over a *domain* of slot values
(`Domain`): an element-wise arithmetic op, a slot permutation (a rotation), a splat
constant, or the sum of all slots. Two evaluators read the tables:

- `HevFunctions`, the xDSL interpreter functions, on whole numpy vectors (`VectorDomain`);
- `slot_evaluator`, lazy and per slot, over any domain: exact integers (`IntDomain`), z3
  terms or polynomials (the synthesizer's exact verification), so a 4096-slot kernel can be
  checked at one slot without computing the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Operation, SSAValue

from tessel.ir.diagnostics import TesselError, op_location

from . import ops as H
from . import spec_ops as S
from .types import PlainType, VecType


class Domain(Protocol):
    """How slot values are computed: integers mod m, numpy vectors, z3 terms, polynomials."""

    def var(self, input: int, slot: int) -> Any: ...
    def const(self, value: int) -> Any: ...
    def add(self, a: Any, b: Any) -> Any: ...
    def sub(self, a: Any, b: Any) -> Any: ...
    def mul(self, a: Any, b: Any) -> Any: ...
    def neg(self, a: Any) -> Any: ...


# --------------------------------------------------------------------------- the meaning of each op

# Element-wise arithmetic: the Domain method each op applies slot by slot.
ELEMENTWISE: dict[type[Operation], str] = {
    H.AddOp: "add",
    H.AddPlainOp: "add",
    S.SpecAddOp: "add",
    H.SubOp: "sub",
    H.SubPlainOp: "sub",
    S.SpecSubOp: "sub",
    H.MultiplyOp: "mul",
    H.MultiplyPlainOp: "mul",
    S.SpecMulOp: "mul",
    H.NegateOp: "neg",
    S.SpecNegOp: "neg",
}
# The value unchanged: encryption, encoding, decryption, relinearization, modulus switching.
IDENTITY: tuple[type[Operation], ...] = (H.EncryptOp, H.EncodeOp, H.DecryptOp, H.RelinearizeOp, H.ModSwitchOp)
# Slot i of the result reads slot (i + amount) mod n of the operand.
ROTATIONS: tuple[type[Operation], ...] = (H.RotateOp, S.SpecShiftOp)
# Every slot holds the op's integer (mod t).
CONSTANTS: tuple[type[Operation], ...] = (H.ConstantOp, S.SpecConstOp)
# Every slot holds the sum of all slots of the operand.
SUMS: tuple[type[Operation], ...] = (S.SpecSumOp,)


def rotation_amount(op: Operation) -> int:
    assert isinstance(op, H.RotateOp | S.SpecShiftOp)
    return op.amount


def constant_value(op: Operation) -> int:
    assert isinstance(op, H.ConstantOp | S.SpecConstOp)
    return op.value.value.data


# --------------------------------------------------------------------------- domains


class IntDomain:
    """Slot values as integers mod `modulus`; `inputs[i][slot]` gives input i at a slot."""

    def __init__(self, modulus: int, inputs: Any):
        self.modulus = modulus
        self.inputs = inputs

    def var(self, input: int, slot: int) -> int:
        return int(self.inputs[input][slot]) % self.modulus

    def const(self, value: int) -> int:
        return value % self.modulus

    def add(self, a: int, b: int) -> int:
        return (a + b) % self.modulus

    def sub(self, a: int, b: int) -> int:
        return (a - b) % self.modulus

    def mul(self, a: int, b: int) -> int:
        return (a * b) % self.modulus

    def neg(self, a: int) -> int:
        return (-a) % self.modulus


class VectorDomain:
    """Whole vectors as numpy int64 arrays mod t (t < 2^31: products fit in int64)."""

    def __init__(self, t: int):
        self.t = t

    def const(self, value: int) -> int:
        return value % self.t

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a + b) % self.t

    def sub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a - b) % self.t

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a * b) % self.t

    def neg(self, a: np.ndarray) -> np.ndarray:
        return (-a) % self.t


def _vec(x: np.ndarray, t: int) -> np.ndarray:
    return np.asarray(x, dtype=np.int64) % t


# --------------------------------------------------------------------------- the interpreter


@register_impls
class HevFunctions(InterpreterFunctions):
    """Implementations of every `hev` op on numpy vectors, mod the plaintext modulus `t`."""

    def __init__(self, t: int):
        self.t = t
        self.domain = VectorDomain(t)

    def _elementwise(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (getattr(self.domain, ELEMENTWISE[type(op)])(*args),)

    def _identity(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (_vec(args[0], self.t),)

    def _rotation(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (np.roll(args[0], -rotation_amount(op)),)  # slot i <- slot i + amount

    def _constant(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        t = op.results[0].type
        assert isinstance(t, PlainType | VecType)
        return (np.full(t.n, self.domain.const(constant_value(op)), dtype=np.int64),)

    def _sum(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        x = args[0]
        return (np.full(x.shape, int(sum(int(v) for v in x) % self.t), dtype=np.int64),)

    run_add = impl(H.AddOp)(_elementwise)
    run_add_plain = impl(H.AddPlainOp)(_elementwise)
    run_sub = impl(H.SubOp)(_elementwise)
    run_sub_plain = impl(H.SubPlainOp)(_elementwise)
    run_multiply = impl(H.MultiplyOp)(_elementwise)
    run_multiply_plain = impl(H.MultiplyPlainOp)(_elementwise)
    run_negate = impl(H.NegateOp)(_elementwise)
    run_spec_add = impl(S.SpecAddOp)(_elementwise)
    run_spec_sub = impl(S.SpecSubOp)(_elementwise)
    run_spec_mul = impl(S.SpecMulOp)(_elementwise)
    run_spec_neg = impl(S.SpecNegOp)(_elementwise)
    run_encrypt = impl(H.EncryptOp)(_identity)
    run_encode = impl(H.EncodeOp)(_identity)
    run_decrypt = impl(H.DecryptOp)(_identity)
    run_relinearize = impl(H.RelinearizeOp)(_identity)
    run_mod_switch = impl(H.ModSwitchOp)(_identity)
    run_rotate = impl(H.RotateOp)(_rotation)
    run_spec_shift = impl(S.SpecShiftOp)(_rotation)
    run_constant = impl(H.ConstantOp)(_constant)
    run_spec_const = impl(S.SpecConstOp)(_constant)
    run_spec_sum = impl(S.SpecSumOp)(_sum)


def run_kernel(module: ModuleOp, fn: func.FuncOp, inputs: Sequence[np.ndarray], t: int) -> np.ndarray:
    """Run a spec or program on cleartext inputs (argument order); its output vector mod t."""
    interp = Interpreter(module)
    interp.register_implementations(FuncFunctions())
    interp.register_implementations(HevFunctions(t))
    (out,) = interp.call_op(fn, tuple(_vec(x, t) for x in inputs))
    return np.asarray(out, dtype=np.int64)


# --------------------------------------------------------------------------- per slot


def slot_evaluator(fn: func.FuncOp, domain: Domain, slots: int, value: SSAValue | None = None) -> Callable[[int], Any]:
    """slot -> the function's output (or `value`, any value of its body) at that slot, over
    `domain` (lazy, memoized). The function's arguments are the domain's inputs, in order:
    `domain.var(i, slot)`."""
    block = fn.body.blocks[0]
    args: dict[SSAValue, int] = {a: i for i, a in enumerate(block.args)}
    memo: dict[tuple[SSAValue, int], Any] = {}
    (ret,) = [op for op in block.ops if isinstance(op, func.ReturnOp)]

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
            if kind in ELEMENTWISE:
                r = getattr(domain, ELEMENTWISE[kind])(*(at(o, slot) for o in op.operands))
            elif kind in IDENTITY:
                r = at(op.operands[0], slot)
            elif kind in ROTATIONS:
                r = at(op.operands[0], (slot + rotation_amount(op)) % slots)
            elif kind in CONSTANTS:
                r = domain.const(constant_value(op))
            elif kind in SUMS:
                r = at(op.operands[0], 0)
                for j in range(1, slots):
                    r = domain.add(r, at(op.operands[0], j))
            else:
                raise TesselError(f"'{op.name}' has no slot semantics", op_location(op))
        memo[key] = r
        return r

    target = ret.operands[0] if value is None else value
    return lambda slot: at(target, slot % slots)
