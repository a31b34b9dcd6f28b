"""Attributes of `coll` with compact syntax, so the ops' declarative formats read like MSCCL.

    o[3]                 #coll.slot: a chunk offset in a buffer (i input, o output, s scratch)
    [0, 1, 2]            #coll.ranks: a list of GPUs
    [(1, 0), (3, 2)]     #coll.pairs: (a, b) pairs: dependencies (tb, step), IB (sender, receiver)
    allgather            #coll.kind: the collective
    nvlink               #coll.link_kind: what carries a link
    Simple               #coll.proto: MSCCL's protocol
    "uc-max"             #coll.switch_policy: TACCL's switch-hyperedge policy
    direct_map           #coll.conn: a sketch's inter-node connections (or a pairs list)

The enumerations are `EnumAttribute`s over the StrEnums of model.py: bare identifiers in the
ops' formats (quoted where the value is not an identifier, as TACCL's "uc-max"), and a parse
error that lists the values where an unknown one is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import I64, DenseArrayBase, IntAttr, i64
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Operation, ParametrizedAttribute, Region, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from .model import Buffer, CollKind, LinkKind, Proto, SwitchPolicy


def region_ops(region: Region) -> list[Operation]:
    """The ops of a region that holds one block or none (`{}` parses as no block)."""
    return list(region.block.ops) if region.blocks else []


def _ints(values: Sequence[int]) -> DenseArrayBase[I64]:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def _values(array: DenseArrayBase[I64]) -> list[int]:
    return [int(v) for v in array.get_values()]


def _parse_enum(parser: AttrParser, what: str, enum: type[StrEnum], quote: str = "") -> str:
    """An identifier (or string) among `enum`'s values; else one error line naming them all:
    `expected a collective: allgather, reduce_scatter, ...`."""
    pos = parser.pos
    value = parser.parse_optional_identifier_or_str_literal()
    if value is None or value not in enum.__members__.values():
        listed = ", ".join(f"{quote}{v.value}{quote}" for v in enum)
        parser.raise_error(f"expected {what}: {listed}", pos, parser.pos)
    return value


@irdl_attr_definition
class KindAttr(EnumAttribute[CollKind], SpacedOpaqueSyntaxAttribute):
    """The collective: allgather, reduce_scatter, allreduce, alltoall, broadcast, reduce."""

    name = "coll.kind"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> CollKind:
        return CollKind(_parse_enum(parser, "a collective", CollKind))


@irdl_attr_definition
class LinkKindAttr(EnumAttribute[LinkKind], SpacedOpaqueSyntaxAttribute):
    """What carries a link: nvlink, pcie, ib (through the GPUs' NICs) or switch."""

    name = "coll.link_kind"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> LinkKind:
        return LinkKind(_parse_enum(parser, "a link kind", LinkKind))


@irdl_attr_definition
class ProtoAttr(EnumAttribute[Proto], SpacedOpaqueSyntaxAttribute):
    """MSCCL's protocol of an algorithm: Simple, LL or LL128."""

    name = "coll.proto"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Proto:
        return Proto(_parse_enum(parser, "a protocol", Proto))


@irdl_attr_definition
class SwitchPolicyAttr(EnumAttribute[SwitchPolicy], SpacedOpaqueSyntaxAttribute):
    """TACCL's switch-hyperedge policy of a sketch: "uc-min" or "uc-max"."""

    name = "coll.switch_policy"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> SwitchPolicy:
        return SwitchPolicy(_parse_enum(parser, "a switch policy", SwitchPolicy, quote='"'))


@irdl_attr_definition
class BufferAttr(EnumAttribute[Buffer], SpacedOpaqueSyntaxAttribute):
    """A GPU buffer: i (input), o (output), s (scratch)."""

    name = "coll.buffer"


@irdl_attr_definition
class SlotAttr(ParametrizedAttribute):
    """A chunk offset in one of a GPU's buffers: `o[3]`."""

    name = "coll.slot"
    buffer: BufferAttr
    offset: IntAttr

    @staticmethod
    def get(buffer: str, offset: int) -> SlotAttr:
        return SlotAttr(BufferAttr(Buffer(buffer)), IntAttr(offset))

    @property
    def value(self) -> tuple[str, int]:
        return (self.buffer.data.value, self.offset.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[BufferAttr | IntAttr]:
        wrapped = parser.parse_optional_punctuation("<") is not None
        pos = parser.pos
        ident = parser.parse_optional_identifier()
        if ident is None or ident not in Buffer.__members__.values():
            parser.raise_error("expected a buffer slot: i[k] (input), o[k] (output) or s[k] (scratch)", pos, parser.pos)
        parser.parse_punctuation("[")
        offset = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation("]")
        if wrapped:
            parser.parse_punctuation(">")
        return [BufferAttr(Buffer(ident)), IntAttr(offset)]

    def print_parameters(self, printer: Printer) -> None:
        # bare inside an op's format (`coll.send o[3]`), in angle brackets where the attribute
        # name precedes it (`#coll.slot<o[3]>`, the generic form)
        text = f"{self.buffer.data.value}[{self.offset.data}]"
        printer.print_string(f"<{text}>" if printer.print_generic_format else text)

    def verify(self) -> None:
        if self.offset.data < 0:
            raise VerifyException(f"buffer offset must be >= 0, got {self.offset.data}")


@irdl_attr_definition
class RanksAttr(ParametrizedAttribute):
    """A list of GPUs: `[0, 1, 2]`."""

    name = "coll.ranks"
    values: DenseArrayBase[I64]

    @staticmethod
    def get(values: Sequence[int]) -> RanksAttr:
        return RanksAttr(_ints(values))

    @property
    def value(self) -> tuple[int, ...]:
        return tuple(_values(self.values))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[DenseArrayBase[I64]]:
        items = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        return [_ints(items)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("[" + ", ".join(str(v) for v in self.value) + "]")


def _parse_pair(parser: AttrParser) -> tuple[int, int]:
    parser.parse_punctuation("(")
    a = parser.parse_integer(allow_boolean=False)
    parser.parse_punctuation(",")
    b = parser.parse_integer(allow_boolean=False)
    parser.parse_punctuation(")")
    return (a, b)


def _parse_pairs_after_bracket(parser: AttrParser) -> list[tuple[int, int]]:
    """`(a, b), ...]` once the opening `[` is consumed."""
    if parser.parse_optional_punctuation("]") is not None:
        return []
    items = [_parse_pair(parser)]
    while parser.parse_optional_punctuation(",") is not None:
        items.append(_parse_pair(parser))
    parser.parse_punctuation("]")
    return items


def _print_pairs(printer: Printer, pairs: list[tuple[int, int]]) -> None:
    printer.print_string("[" + ", ".join(f"({a}, {b})" for a, b in pairs) + "]")


def _pairs(array: DenseArrayBase[I64]) -> list[tuple[int, int]]:
    v = _values(array)
    return [(v[i], v[i + 1]) for i in range(0, len(v), 2)]


@irdl_attr_definition
class PairsAttr(ParametrizedAttribute):
    """(a, b) pairs: `[(1, 0), (3, 2)]`."""

    name = "coll.pairs"
    values: DenseArrayBase[I64]

    @staticmethod
    def get(pairs: Sequence[tuple[int, int]]) -> PairsAttr:
        return PairsAttr(_ints([x for p in pairs for x in p]))

    @property
    def value(self) -> list[tuple[int, int]]:
        return _pairs(self.values)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[DenseArrayBase[I64]]:
        parser.parse_punctuation("[")
        return [_ints([x for p in _parse_pairs_after_bracket(parser) for x in p])]

    def print_parameters(self, printer: Printer) -> None:
        _print_pairs(printer, self.value)

    def verify(self) -> None:
        if len(self.values.get_values()) % 2:
            raise VerifyException("pairs need an even number of values")


class ConnMode(StrEnum):
    """How a sketch connects nodes: local GPU i to local GPU i, everyone to everyone, or a list."""

    DIRECT_MAP = "direct_map"
    FULLY_CONNECTED = "fully_connected"
    PAIRS = "pairs"


@irdl_attr_definition
class ConnModeAttr(EnumAttribute[ConnMode], SpacedOpaqueSyntaxAttribute):
    name = "coll.conn_mode"


# the sketch model's (TACCL's) names of the modes
_CONN_MODEL = {ConnMode.DIRECT_MAP: "direct-map", ConnMode.FULLY_CONNECTED: "fully-connected"}


@irdl_attr_definition
class ConnAttr(ParametrizedAttribute):
    """A sketch's IB connections: `direct_map`, `fully_connected` or `[(sender, receiver), ...]`."""

    name = "coll.conn"
    mode: ConnModeAttr
    pairs: DenseArrayBase[I64]

    @staticmethod
    def get(conn: str | Sequence[tuple[int, int]]) -> ConnAttr:
        if isinstance(conn, str):
            mode = next(m for m, text in _CONN_MODEL.items() if text == conn)
            return ConnAttr(ConnModeAttr(mode), _ints([]))
        return ConnAttr(ConnModeAttr(ConnMode.PAIRS), _ints([x for p in conn for x in p]))

    @property
    def value(self) -> str | list[tuple[int, int]]:
        mode = self.mode.data
        return _CONN_MODEL[mode] if mode in _CONN_MODEL else _pairs(self.pairs)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[ConnModeAttr | DenseArrayBase[I64]]:
        if parser.parse_optional_punctuation("[") is not None:
            pairs = _parse_pairs_after_bracket(parser)
            return [ConnModeAttr(ConnMode.PAIRS), _ints([x for p in pairs for x in p])]
        wrapped = parser.parse_optional_punctuation("<") is not None
        pos = parser.pos
        ident = parser.parse_optional_identifier()
        if ident is None or ident not in (ConnMode.DIRECT_MAP, ConnMode.FULLY_CONNECTED):
            parser.raise_error("expected direct_map, fully_connected or [(sender, receiver), ...]", pos, parser.pos)
        if wrapped:
            parser.parse_punctuation(">")
        return [ConnModeAttr(ConnMode(ident)), _ints([])]

    def print_parameters(self, printer: Printer) -> None:
        if self.mode.data == ConnMode.PAIRS:
            _print_pairs(printer, _pairs(self.pairs))
        else:
            text = self.mode.data.value
            printer.print_string(f"<{text}>" if printer.print_generic_format else text)

    def verify(self) -> None:
        if self.mode.data != ConnMode.PAIRS and self.pairs.get_values():
            raise VerifyException(f"conn {self.mode.data.value} takes no pairs")
        if len(self.pairs.get_values()) % 2:
            raise VerifyException("pairs need an even number of values")
