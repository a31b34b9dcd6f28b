"""The `vta` dialect's attributes: the names the instruction set gives its fields.

    inp | wgt | acc | out | uop        #vta.buffer: the SRAM a LOAD or STORE moves
    add | shr | max | min | mul        #vta.alu_op: the lane-wise ALU operation
    [pop_prev, push_next]              #vta.deps: the dependency tokens an instruction takes and gives
    <top = 1, left = 0, ...>           #vta.padding: zero rows and columns around a 2-D tile
    int8 | int32 | uint32              #vta.dtype: the element type of a tensor in DRAM

Each enumeration is spelled as the ISA records in `isa.py` name their members (lower case), so
the conversion between the two is by name; the records keep the hardware's encodings.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr
from xdsl.dialects.utils import BitEnumAttribute, EnumAttribute
from xdsl.ir import ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from . import isa


class Buffer(StrEnum):
    """An on-chip SRAM (`isa.Mem`): micro-ops, weights, inputs, accumulators, outputs."""

    UOP = "uop"
    WGT = "wgt"
    INP = "inp"
    ACC = "acc"
    OUT = "out"


class AluOpcode(StrEnum):
    """The ALU's lane-wise operations (`isa.AluOp`)."""

    MIN = "min"
    MAX = "max"
    ADD = "add"
    SHR = "shr"
    MUL = "mul"


class Dep(StrEnum):
    """A dependency token: pop (wait for) or push (give) towards the previous or next module."""

    POP_PREV = "pop_prev"
    POP_NEXT = "pop_next"
    PUSH_PREV = "push_prev"
    PUSH_NEXT = "push_next"


class Dtype(StrEnum):
    """What a DRAM tensor holds: int8 activations and weights, int32 biases, uint32 micro-ops."""

    INT8 = "int8"
    INT32 = "int32"
    UINT32 = "uint32"


@irdl_attr_definition
class BufferAttr(EnumAttribute[Buffer], SpacedOpaqueSyntaxAttribute):
    name = "vta.buffer"

    @staticmethod
    def of(mem: isa.Mem) -> BufferAttr:
        return BufferAttr(Buffer(mem.name.lower()))

    def mem(self) -> isa.Mem:
        return isa.Mem[self.data.name]


@irdl_attr_definition
class AluOpcodeAttr(EnumAttribute[AluOpcode], SpacedOpaqueSyntaxAttribute):
    name = "vta.alu_op"

    @staticmethod
    def of(op: isa.AluOp) -> AluOpcodeAttr:
        return AluOpcodeAttr(AluOpcode(op.name.lower()))

    def alu_op(self) -> isa.AluOp:
        return isa.AluOp[self.data.name]


@irdl_attr_definition
class DtypeAttr(EnumAttribute[Dtype], SpacedOpaqueSyntaxAttribute):
    name = "vta.dtype"


@irdl_attr_definition
class DepsAttr(BitEnumAttribute[Dep]):
    """The set of tokens an instruction pops and pushes, printed as a list: `[pop_prev, push_next]`."""

    name = "vta.deps"
    delimiter_value = AttrParser.Delimiter.SQUARE

    def print_parameter(self, printer: Printer) -> None:
        # the flags in the ISA's order, comma and space as the instruction listing writes them
        with printer.in_square_brackets():
            printer.print_list([d.value for d in Dep if d in self.data], printer.print_string)

    @staticmethod
    def of(insn: isa.Insn) -> DepsAttr:
        return DepsAttr(frozenset(Dep(d) for d in insn.deps()))

    def flags(self) -> dict[str, bool]:
        """The four `isa.Insn` flag fields."""
        return {d.value: d in self.data for d in Dep}


NO_DEPS = DepsAttr(frozenset())

_SIDES = ("top", "left", "bottom", "right")


@irdl_attr_definition
class PaddingAttr(ParametrizedAttribute):
    """Zero rows above and below, zero columns left and right of a 2-D tile or image.

    Printed with its field names, which makes the order of the four numbers irrelevant:
    `<top = 1, left = 0, bottom = 1, right = 2>`."""

    name = "vta.padding"
    top: IntAttr = param_def()
    left: IntAttr = param_def()
    bottom: IntAttr = param_def()
    right: IntAttr = param_def()

    @staticmethod
    def of(top: int, left: int, bottom: int, right: int) -> PaddingAttr:
        return PaddingAttr(IntAttr(top), IntAttr(left), IntAttr(bottom), IntAttr(right))

    def values(self) -> tuple[int, int, int, int]:
        """(top, left, bottom, right), the order of ONNX's `pads`."""
        return self.top.data, self.left.data, self.bottom.data, self.right.data

    def verify(self) -> None:
        if min(self.values()) < 0:
            raise VerifyException(f"#vta.padding must not be negative, got {self.values()}")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + ", ".join(f"{k} = {v}" for k, v in zip(_SIDES, self.values())) + ">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[IntAttr]:
        pos = parser.pos

        def side() -> tuple[str, int]:
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            return key, parser.parse_integer(allow_boolean=False)

        given = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, side)
        if sorted(k for k, _ in given) != sorted(_SIDES):
            names = ", ".join(k for k, _ in given)
            parser.raise_error(
                f"#vta.padding takes top, left, bottom and right once each, got {names}", pos, parser.pos
            )
        values = dict(given)
        return tuple(IntAttr(values[k]) for k in _SIDES)
