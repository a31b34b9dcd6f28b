"""The three kinds of value of the `hev` dialect (BFV with batching).

    !hev.vec<4096>             a cleartext vector of 4096 integers mod t (the user's side:
                               spec values, program inputs before encryption, outputs after)
    !hev.pt<4096>              an encoded plaintext (public data or a constant, server side)
    !hev.ct<4096>              a ciphertext of 4096 slots: size 2 (relinearized), level 0
    !hev.ct<4096, size = 3>    the product of two ciphertexts before relinearization
    !hev.ct<4096, level = 1>   after one modulus switch (one prime of q dropped)

The slot count n is the *logical* vector length. A BFV ciphertext has N/2 slots per row and
`rotate` rotates a row cyclically; a runtime stores an n-slot vector repeated N/(2n) times
in both rows, so a rotation of the row is exactly a cyclic rotation of the n-vector. Hence
n must be a power of two (and at most N/2 for the N chosen).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

MAX_SLOTS = 16384  # N/2 for SEAL's largest ring, N = 32768


def check_slots(n: int, what: str) -> None:
    if n < 1 or n & (n - 1) or n > MAX_SLOTS:
        raise VerifyException(f"{what} slot count must be a power of two between 1 and {MAX_SLOTS}, got {n}")


class _SlotsType(ParametrizedAttribute, TypeAttribute):
    """Base of vec and pt: just a slot count (each subclass declares the parameter itself:
    xDSL compares attributes by the fields of the decorated class only)."""

    slots: IntAttr

    def __init__(self, slots: int | IntAttr):
        super().__init__(IntAttr(slots) if isinstance(slots, int) else slots)

    @property
    def n(self) -> int:
        return self.slots.data

    def verify(self) -> None:
        check_slots(self.n, f"!{self.name}")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.n}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr]:
        with parser.in_angle_brackets():
            return (IntAttr(parser.parse_integer(allow_negative=False, allow_boolean=False)),)


@irdl_attr_definition
class VecType(_SlotsType):
    """A cleartext vector of integers mod t."""

    name = "hev.vec"
    slots: IntAttr = param_def(converter=IntAttr.get)

    def __init__(self, slots: int | IntAttr):
        super().__init__(slots)


@irdl_attr_definition
class PlainType(_SlotsType):
    """An encoded (not encrypted) plaintext."""

    name = "hev.pt"
    slots: IntAttr = param_def(converter=IntAttr.get)

    def __init__(self, slots: int | IntAttr):
        super().__init__(slots)


@irdl_attr_definition
class CipherType(ParametrizedAttribute, TypeAttribute):
    """A ciphertext: slot count, size (2, or 3 after a multiplication) and level."""

    name = "hev.ct"
    slots: IntAttr = param_def(converter=IntAttr.get)
    size: IntAttr = param_def(converter=IntAttr.get)
    level: IntAttr = param_def(converter=IntAttr.get)

    def __init__(self, slots: int | IntAttr, size: int | IntAttr = 2, level: int | IntAttr = 0):
        def wrap(v: int | IntAttr) -> IntAttr:
            return IntAttr(v) if isinstance(v, int) else v

        super().__init__(wrap(slots), wrap(size), wrap(level))

    @property
    def n(self) -> int:
        return self.slots.data

    def with_(self, size: int | None = None, level: int | None = None) -> CipherType:
        return CipherType(self.n, self.size.data if size is None else size, self.level.data if level is None else level)

    def verify(self) -> None:
        check_slots(self.n, "!hev.ct")
        if self.size.data not in (2, 3):
            raise VerifyException(f"!hev.ct size must be 2 or 3, got {self.size.data}")
        if self.level.data < 0:
            raise VerifyException(f"!hev.ct level must be non-negative, got {self.level.data}")

    def print_parameters(self, printer: Printer) -> None:
        text = f"<{self.n}"
        if self.size.data != 2:
            text += f", size = {self.size.data}"
        if self.level.data:
            text += f", level = {self.level.data}"
        printer.print_string(text + ">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr, IntAttr]:
        values = {"size": 2, "level": 0}
        with parser.in_angle_brackets():
            slots = parser.parse_integer(allow_negative=False, allow_boolean=False)
            while parser.parse_optional_punctuation(",") is not None:
                pos = parser.pos
                key = parser.parse_identifier(" (size or level)")
                if key not in values:
                    parser.raise_error(f"!hev.ct takes 'size' and 'level', got '{key}'", pos, parser.pos)
                parser.parse_punctuation("=")
                values[key] = parser.parse_integer(allow_boolean=False)
        return IntAttr(slots), IntAttr(values["size"]), IntAttr(values["level"])
