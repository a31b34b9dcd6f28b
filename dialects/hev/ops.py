"""`hev` program ops: what a BFV kernel does on the server, between the client's encrypt and
decrypt. Each op infers its result type from its operands (`infer`); the verifier compares
the declared type with the inferred one, and the builders (`make`) use the same function.

    %c = hev.encrypt %x : !hev.vec<8> -> !hev.ct<8>
    %p = hev.encode %b : !hev.vec<8> -> !hev.pt<8>
    %two = hev.constant 2 : !hev.pt<8>
    %r = hev.rotate %c by 2 : !hev.ct<8>                       // slot i reads slot i + 2
    %s = hev.add %c, %r : !hev.ct<8>
    %m = hev.multiply %s, %s : !hev.ct<8> -> !hev.ct<8, size = 3>
    %l = hev.relinearize %m : !hev.ct<8, size = 3> -> !hev.ct<8>
    %q = hev.multiply_plain %l, %p : !hev.ct<8>, !hev.pt<8>
    %y = hev.decrypt %q : !hev.ct<8> -> !hev.vec<8>

Reference semantics (exact integers mod the plaintext modulus t) are in `reference.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import I64, IntegerAttr
from xdsl.ir import Attribute, SSAValue
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
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .types import CipherType, PlainType, VecType


def _same_slots(a: Attribute, b: Attribute, what: str = "operands") -> None:
    na, nb = getattr(a, "n", None), getattr(b, "n", None)
    if na != nb:
        raise VerifyException(f"{what} must have the same slot count, got {a} and {b}")


def _same_level(a: CipherType, b: CipherType) -> None:
    if a.level.data != b.level.data:
        raise VerifyException(f"operands must be at the same level (mod_switch the other one), got {a} and {b}")


class HevOp(IRDLOperation):
    """Base of the `hev` program ops: result type = infer(operand types, properties)."""

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        raise NotImplementedError

    def verify_(self) -> None:
        want = self.infer([o.type for o in self.operands])
        got = self.results[0].type
        if want != got:
            raise VerifyException(f"result type should be {want}, got {got}")

    @classmethod
    def make(cls, operands: Sequence[SSAValue], name: str | None = None, **props: Attribute) -> Self:
        """A verified op with its result type inferred: `AddOp.make([a, b])`."""
        probe = cls.create(operands=list(operands), result_types=[VecType(1)], properties=dict(props))
        result_type = probe.infer([o.type for o in operands])
        probe.erase(safe_erase=False)
        op = cls.create(operands=list(operands), result_types=[result_type], properties=dict(props))
        if name:
            op.results[0].name_hint = name
        return op


# --------------------------------------------------------------------------- boundaries


@irdl_op_definition
class EncryptOp(HevOp):
    """The client encrypts a cleartext vector (replicated over the ring's slots)."""

    name = "hev.encrypt"
    input = operand_def(VecType)
    result = result_def(CipherType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        (v,) = operand_types
        assert isinstance(v, VecType)
        return CipherType(v.n)


@irdl_op_definition
class EncodeOp(HevOp):
    """The server encodes public cleartext data as a plaintext."""

    name = "hev.encode"
    input = operand_def(VecType)
    result = result_def(PlainType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        (v,) = operand_types
        assert isinstance(v, VecType)
        return PlainType(v.n)


@irdl_op_definition
class ConstantOp(HevOp):
    """A plaintext with the same integer (mod t) in every slot."""

    name = "hev.constant"
    value = prop_def(IntegerAttr[I64])
    result = result_def(PlainType)
    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `:` type($result)"

    def verify_(self) -> None:
        pass

    @staticmethod
    def splat(value: int, slots: int, name: str | None = None) -> ConstantOp:
        op = ConstantOp.create(result_types=[PlainType(slots)], properties={"value": IntegerAttr(value, 64)})
        if name:
            op.result.name_hint = name
        return op


@irdl_op_definition
class DecryptOp(HevOp):
    """The client decrypts a ciphertext of any size and level."""

    name = "hev.decrypt"
    input = operand_def(CipherType)
    result = result_def(VecType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        (c,) = operand_types
        assert isinstance(c, CipherType)
        return VecType(c.n)


# --------------------------------------------------------------------------- ct-ct


@irdl_custom_directive
class CipherTypes(CustomDirective):
    """The types of a ciphertext binary op, written once where they agree: `T` when both
    operands and the result have type T, `T -> R` when the operands agree, else
    `T1, T2 -> R` (a size-3 product added to a relinearized value, say)."""

    lhs: TypeDirective
    rhs: TypeDirective
    result: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        colon = parser.pos
        a = parser.parse_type()
        b = parser.parse_type() if parser.parse_optional_punctuation(",") is not None else a
        r = parser.parse_type() if parser.parse_optional_punctuation("->") is not None else a
        if b is not a and r is a:
            parser.raise_error(
                f"expected '->' and the result type after the operand types of {state.op_type.name}", colon, colon + 1
            )
        self.lhs.set(state, (a,))
        self.rhs.set(state, (b,))
        self.result.set(state, (r,))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        (a,), (b,), (r,) = self.lhs.get(op), self.rhs.get(op), self.result.get(op)
        state.print_whitespace(printer)
        printer.print_attribute(a)
        if b != a:
            printer.print_string(", ")
            printer.print_attribute(b)
        if r != a or b != a:
            printer.print_string(" -> ")
            printer.print_attribute(r)


class CipherBinaryOp(HevOp):
    """Two ciphertexts in, one out, at the same slot count and level (see `CipherTypes`
    for how the types print)."""

    lhs = operand_def(CipherType)
    rhs = operand_def(CipherType)
    result = result_def(CipherType)
    traits = traits_def(Pure())
    custom_directives = (CipherTypes,)
    assembly_format = "$lhs `,` $rhs attr-dict `:` custom<CipherTypes>(type($lhs), type($rhs), type($result))"

    def _operand_types(self, operand_types: Sequence[Attribute]) -> tuple[CipherType, CipherType]:
        a, b = operand_types
        assert isinstance(a, CipherType) and isinstance(b, CipherType)
        _same_slots(a, b)
        _same_level(a, b)
        return a, b


@irdl_op_definition
class AddOp(CipherBinaryOp):
    """Slot-wise sum; a size-3 operand makes a size-3 result."""

    name = "hev.add"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        a, b = self._operand_types(operand_types)
        return a.with_(size=max(a.size.data, b.size.data))


@irdl_op_definition
class SubOp(CipherBinaryOp):
    """Slot-wise difference lhs - rhs."""

    name = "hev.sub"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        a, b = self._operand_types(operand_types)
        return a.with_(size=max(a.size.data, b.size.data))


@irdl_op_definition
class MultiplyOp(CipherBinaryOp):
    """Slot-wise product of two relinearized ciphertexts; the result has size 3 and needs
    `hev.relinearize` before a rotation or another multiplication."""

    name = "hev.multiply"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        a, b = self._operand_types(operand_types)
        for t in (a, b):
            if t.size.data != 2:
                raise VerifyException(f"operands must be relinearized (size 2), got {t}")
        return a.with_(size=3)


# --------------------------------------------------------------------------- ct-pt


class PlainBinaryOp(HevOp):
    T: ClassVar = VarConstraint("T", base(CipherType))
    lhs = operand_def(T)
    rhs = operand_def(PlainType)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        a, p = operand_types
        _same_slots(a, p)
        return a


@irdl_op_definition
class AddPlainOp(PlainBinaryOp):
    name = "hev.add_plain"


@irdl_op_definition
class SubPlainOp(PlainBinaryOp):
    """ciphertext - plaintext."""

    name = "hev.sub_plain"


@irdl_op_definition
class MultiplyPlainOp(PlainBinaryOp):
    name = "hev.multiply_plain"


# --------------------------------------------------------------------------- unary


@irdl_op_definition
class NegateOp(HevOp):
    name = "hev.negate"
    T: ClassVar = VarConstraint("T", base(CipherType))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($result)"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        return operand_types[0]


@irdl_op_definition
class RotateOp(HevOp):
    """Cyclic rotation: slot i of the result holds slot (i + offset) mod n of the input
    (SEAL's rotate_rows direction: a positive offset moves data towards slot 0)."""

    name = "hev.rotate"
    T: ClassVar = VarConstraint("T", base(CipherType))
    input = operand_def(T)
    offset = prop_def(IntegerAttr[I64])
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input `by` $offset attr-dict `:` type($result)"

    @property
    def amount(self) -> int:
        return self.offset.value.data

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        (c,) = operand_types
        assert isinstance(c, CipherType)
        if c.size.data != 2:
            raise VerifyException(f"operand must be relinearized (size 2) before a rotation, got {c}")
        k = self.amount
        if k == 0 or not -c.n < k < c.n:
            raise VerifyException(f"rotation offset must be non-zero and within (-{c.n}, {c.n}) for {c}, got {k}")
        return c


@irdl_op_definition
class RelinearizeOp(HevOp):
    """Size 3 -> size 2 with the relinearization key."""

    name = "hev.relinearize"
    input = operand_def(CipherType)
    result = result_def(CipherType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        (c,) = operand_types
        assert isinstance(c, CipherType)
        if c.size.data != 3:
            raise VerifyException(f"operand must have size 3 (a product), got {c}")
        return c.with_(size=2)


@irdl_op_definition
class ModSwitchOp(HevOp):
    """Drop the last prime of the coefficient modulus: every later op is cheaper, and the
    noise budget shrinks by about that prime's size. Values are unchanged."""

    name = "hev.mod_switch"
    input = operand_def(CipherType)
    result = result_def(CipherType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def infer(self, operand_types: Sequence[Attribute]) -> Attribute:
        (c,) = operand_types
        assert isinstance(c, CipherType)
        return c.with_(level=c.level.data + 1)


PROGRAM_OPS: list[type[IRDLOperation]] = [
    EncryptOp,
    EncodeOp,
    ConstantOp,
    DecryptOp,
    AddOp,
    SubOp,
    MultiplyOp,
    AddPlainOp,
    SubPlainOp,
    MultiplyPlainOp,
    NegateOp,
    RotateOp,
    RelinearizeOp,
    ModSwitchOp,
]
