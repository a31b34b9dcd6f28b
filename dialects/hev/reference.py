"""Reference semantics of `hev`: every value is a vector of integers mod t (numpy int64).

Encryption is invisible here: a ciphertext, a plaintext and a cleartext vector all mean
their slot values, and relinearize / mod_switch are the identity. This is the oracle for
programs (SEAL must decrypt to it), for specs, and for the differential tests of passes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.func import FuncFunctions

from . import ops as H
from . import spec_ops as S
from .types import PlainType


def _vec(x: np.ndarray, t: int) -> np.ndarray:
    return np.asarray(x, dtype=np.int64) % t


@register_impls
class HevFunctions(InterpreterFunctions):
    """Implementations of every `hev` op, mod the plaintext modulus `t` (< 2^31)."""

    def __init__(self, t: int):
        self.t = t

    # ------------------------------------------------------------------ boundaries

    @impl(H.EncryptOp)
    def run_encrypt(self, interp: Interpreter, op: H.EncryptOp, args: PythonValues) -> PythonValues:
        return (_vec(args[0], self.t),)

    @impl(H.EncodeOp)
    def run_encode(self, interp: Interpreter, op: H.EncodeOp, args: PythonValues) -> PythonValues:
        return (_vec(args[0], self.t),)

    @impl(H.DecryptOp)
    def run_decrypt(self, interp: Interpreter, op: H.DecryptOp, args: PythonValues) -> PythonValues:
        return (_vec(args[0], self.t),)

    @impl(H.ConstantOp)
    def run_constant(self, interp: Interpreter, op: H.ConstantOp, args: PythonValues) -> PythonValues:
        t = op.result.type
        assert isinstance(t, PlainType)
        return (np.full(t.n, op.value.value.data % self.t, dtype=np.int64),)

    # ------------------------------------------------------------------ arithmetic

    def _add(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        return ((args[0] + args[1]) % self.t,)

    def _sub(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        return ((args[0] - args[1]) % self.t,)

    def _mul(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        return ((args[0] * args[1]) % self.t,)  # both < 2^31: the product fits in int64

    def _neg(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        return ((-args[0]) % self.t,)

    def _identity(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        return (args[0],)

    run_add = impl(H.AddOp)(_add)
    run_add_plain = impl(H.AddPlainOp)(_add)
    run_sub = impl(H.SubOp)(_sub)
    run_sub_plain = impl(H.SubPlainOp)(_sub)
    run_multiply = impl(H.MultiplyOp)(_mul)
    run_multiply_plain = impl(H.MultiplyPlainOp)(_mul)
    run_negate = impl(H.NegateOp)(_neg)
    run_relinearize = impl(H.RelinearizeOp)(_identity)
    run_mod_switch = impl(H.ModSwitchOp)(_identity)

    @impl(H.RotateOp)
    def run_rotate(self, interp: Interpreter, op: H.RotateOp, args: PythonValues) -> PythonValues:
        return (np.roll(args[0], -op.amount),)  # slot i <- slot i + offset

    # ------------------------------------------------------------------ spec

    run_spec_add = impl(S.SpecAddOp)(_add)
    run_spec_sub = impl(S.SpecSubOp)(_sub)
    run_spec_mul = impl(S.SpecMulOp)(_mul)
    run_spec_neg = impl(S.SpecNegOp)(_neg)

    @impl(S.SpecShiftOp)
    def run_spec_shift(self, interp: Interpreter, op: S.SpecShiftOp, args: PythonValues) -> PythonValues:
        return (np.roll(args[0], -op.amount),)

    @impl(S.SpecConstOp)
    def run_spec_const(self, interp: Interpreter, op: S.SpecConstOp, args: PythonValues) -> PythonValues:
        t = op.result.type
        return (np.full(t.n, op.value.value.data % self.t, dtype=np.int64),)  # type: ignore[attr-defined]

    @impl(S.SpecSumOp)
    def run_spec_sum(self, interp: Interpreter, op: S.SpecSumOp, args: PythonValues) -> PythonValues:
        x = args[0]
        total = int(sum(int(v) for v in x) % self.t)
        return (np.full(x.shape, total, dtype=np.int64),)


def run_kernel(module: ModuleOp, fn: func.FuncOp, inputs: Sequence[np.ndarray], t: int) -> np.ndarray:
    """Run a spec or program on cleartext inputs (argument order); its output vector mod t."""
    interp = Interpreter(module)
    interp.register_implementations(FuncFunctions())
    interp.register_implementations(HevFunctions(t))
    (out,) = interp.call_op(fn, tuple(_vec(x, t) for x in inputs))
    return np.asarray(out, dtype=np.int64)
