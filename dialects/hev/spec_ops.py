"""`hev.spec.*`: the plaintext meaning of a kernel, written once on cleartext vectors.

A spec is a `func.func` marked `hev.spec` whose values are `!hev.vec<n>` (integers mod t).
Every op is rotation-equivariant, which the synthesizer relies on:

    %s = hev.spec.shift %x by -64 : !hev.vec<4096>    // s[i] = x[(i - 64) mod n]
    %a = hev.spec.add %x, %s : !hev.vec<4096>          // also sub, mul
    %n = hev.spec.neg %a : !hev.vec<4096>
    %k = hev.spec.const 2 : !hev.vec<4096>             // every slot holds 2
    %t = hev.spec.sum %a : !hev.vec<4096>              // every slot holds the sum of all slots

Which slots of the inputs hold what and which output slots matter is said by attributes
on the function (see `tessel.dialects.hev.kernel`).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .types import VecType


class SpecBinaryOp(IRDLOperation):
    T: ClassVar = VarConstraint("T", base(VecType))
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"


@irdl_op_definition
class SpecAddOp(SpecBinaryOp):
    name = "hev.spec.add"


@irdl_op_definition
class SpecSubOp(SpecBinaryOp):
    name = "hev.spec.sub"


@irdl_op_definition
class SpecMulOp(SpecBinaryOp):
    name = "hev.spec.mul"


class SpecUnaryOp(IRDLOperation):
    T: ClassVar = VarConstraint("T", base(VecType))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($result)"


@irdl_op_definition
class SpecNegOp(SpecUnaryOp):
    name = "hev.spec.neg"


@irdl_op_definition
class SpecSumOp(SpecUnaryOp):
    """Every slot holds the sum of all n slots (pick the slots that matter with hev.slots)."""

    name = "hev.spec.sum"


@irdl_op_definition
class SpecShiftOp(IRDLOperation):
    """result[i] = input[(i + offset) mod n]: the same direction as `hev.rotate`."""

    name = "hev.spec.shift"
    T: ClassVar = VarConstraint("T", base(VecType))
    input = operand_def(T)
    offset = prop_def(IntegerAttr[I64])
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input `by` $offset attr-dict `:` type($result)"

    @property
    def amount(self) -> int:
        return self.offset.value.data

    def verify_(self) -> None:
        t = self.input.type
        assert isinstance(t, VecType)
        if self.amount == 0 or not -t.n < self.amount < t.n:
            raise VerifyException(
                f"shift offset must be non-zero and within (-{t.n}, {t.n}) for {t}, got {self.amount}"
            )


@irdl_op_definition
class SpecConstOp(IRDLOperation):
    """A splat constant (reduced mod t by the semantics)."""

    name = "hev.spec.const"
    value = prop_def(IntegerAttr[I64])
    result = result_def(VecType)
    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `:` type($result)"


SPEC_OPS: list[type[IRDLOperation]] = [
    SpecAddOp,
    SpecSubOp,
    SpecMulOp,
    SpecNegOp,
    SpecShiftOp,
    SpecConstOp,
    SpecSumOp,
]
