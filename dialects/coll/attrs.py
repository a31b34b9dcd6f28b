"""Attributes of `coll` with compact syntax, so the ops' declarative formats read like MSCCL.

    o[3]                 #coll.slot: a chunk offset in a buffer (i input, o output, s scratch)
    [0, 1, 2]            #coll.ranks: a list of GPUs
    [(1, 0), (3, 2)]     #coll.pairs: (a, b) pairs: dependencies (tb, step), IB (sender, receiver)
    allgather            #coll.kind: the collective
    direct_map           #coll.conn: a sketch's inter-node connections (or a pairs list)
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntAttr, StringAttr, i64
from xdsl.ir import ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from .model import BUFFERS, CollKind


def region_ops(region) -> list:  # noqa: ANN001
    """The ops of a region that holds one block or none (`{}` parses as no block)."""
    return list(region.block.ops) if region.blocks else []


def _bare(printer: Printer, text: str) -> None:
    """Identifier-like parameters: bare inside an op's custom syntax (`coll.send o[3]`), in
    angle brackets where the attribute name precedes them (`#coll.slot<o[3]>`, generic form)."""
    printer.print_string(f"<{text}>" if printer.print_generic_format else text)


def _ints(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


@irdl_attr_definition
class SlotAttr(ParametrizedAttribute):
    name = "coll.slot"
    buffer: StringAttr = param_def()
    offset: IntAttr = param_def()

    @staticmethod
    def get(buffer: str, offset: int) -> SlotAttr:
        return SlotAttr(StringAttr(buffer), IntAttr(offset))

    @property
    def value(self) -> tuple[str, int]:
        return (self.buffer.data, self.offset.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list:
        wrapped = parser.parse_optional_punctuation("<") is not None
        pos = parser.pos
        ident = parser.parse_optional_identifier()
        if ident not in BUFFERS:
            parser.raise_error("expected a buffer slot: i[k] (input), o[k] (output) or s[k] (scratch)", pos, parser.pos)
        parser.parse_punctuation("[")
        offset = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation("]")
        if wrapped:
            parser.parse_punctuation(">")
        return [StringAttr(ident), IntAttr(offset)]

    def print_parameters(self, printer: Printer) -> None:
        _bare(printer, f"{self.buffer.data}[{self.offset.data}]")

    def verify(self) -> None:
        if self.buffer.data not in BUFFERS:
            raise VerifyException(f"buffer must be i, o or s, got {self.buffer.data}")
        if self.offset.data < 0:
            raise VerifyException(f"buffer offset must be >= 0, got {self.offset.data}")


@irdl_attr_definition
class RanksAttr(ParametrizedAttribute):
    name = "coll.ranks"
    values: DenseArrayBase = param_def()

    @staticmethod
    def get(values: Sequence[int]) -> RanksAttr:
        return RanksAttr(_ints(values))

    @property
    def value(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.values.get_values())

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list:
        items = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False))
        return [_ints(items)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("[" + ", ".join(str(v) for v in self.value) + "]")


@irdl_attr_definition
class PairsAttr(ParametrizedAttribute):
    name = "coll.pairs"
    values: DenseArrayBase = param_def()

    @staticmethod
    def get(pairs: Sequence[tuple[int, int]]) -> PairsAttr:
        return PairsAttr(_ints([x for p in pairs for x in p]))

    @property
    def value(self) -> list[tuple[int, int]]:
        v = [int(x) for x in self.values.get_values()]
        return [(v[i], v[i + 1]) for i in range(0, len(v), 2)]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list:
        def pair() -> tuple[int, int]:
            parser.parse_punctuation("(")
            a = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            b = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(")")
            return (a, b)

        items = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, pair)
        return [_ints([x for p in items for x in p])]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("[" + ", ".join(f"({a}, {b})" for a, b in self.value) + "]")

    def verify(self) -> None:
        if len(self.values.get_values()) % 2:
            raise VerifyException("pairs need an even number of values")


@irdl_attr_definition
class KindAttr(ParametrizedAttribute):
    name = "coll.kind"
    kind: StringAttr = param_def()

    @staticmethod
    def get(kind: CollKind | str) -> KindAttr:
        return KindAttr(StringAttr(str(kind)))

    @property
    def value(self) -> CollKind:
        return CollKind(self.kind.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list:
        wrapped = parser.parse_optional_punctuation("<") is not None
        pos = parser.pos
        ident = parser.parse_optional_identifier()
        if ident not in [k.value for k in CollKind]:
            parser.raise_error(f"expected a collective: {', '.join(k.value for k in CollKind)}", pos, parser.pos)
        if wrapped:
            parser.parse_punctuation(">")
        return [StringAttr(ident)]

    def print_parameters(self, printer: Printer) -> None:
        _bare(printer, self.kind.data)


CONN_MODES = {"direct_map": "direct-map", "fully_connected": "fully-connected"}


@irdl_attr_definition
class ConnAttr(ParametrizedAttribute):
    """A sketch's IB connections: `direct_map`, `fully_connected` or `[(sender, receiver), ...]`."""

    name = "coll.conn"
    mode: StringAttr = param_def()
    pairs: DenseArrayBase = param_def()

    @staticmethod
    def get(conn: str | Sequence[tuple[int, int]]) -> ConnAttr:
        if isinstance(conn, str):
            mode = {v: k for k, v in CONN_MODES.items()}[conn]
            return ConnAttr(StringAttr(mode), _ints([]))
        return ConnAttr(StringAttr("pairs"), _ints([x for p in conn for x in p]))

    @property
    def value(self) -> str | list[tuple[int, int]]:
        if self.mode.data in CONN_MODES:
            return CONN_MODES[self.mode.data]
        v = [int(x) for x in self.pairs.get_values()]
        return [(v[i], v[i + 1]) for i in range(0, len(v), 2)]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list:
        if parser.parse_optional_punctuation("[") is not None:
            pairs = PairsAttr.parse_parameters.__func__(PairsAttr, _Reopened(parser))  # type: ignore[attr-defined]
            return [StringAttr("pairs"), pairs[0]]
        wrapped = parser.parse_optional_punctuation("<") is not None
        pos = parser.pos
        ident = parser.parse_optional_identifier()
        if ident not in CONN_MODES:
            parser.raise_error("expected direct_map, fully_connected or [(sender, receiver), ...]", pos, parser.pos)
        if wrapped:
            parser.parse_punctuation(">")
        return [StringAttr(ident), _ints([])]

    def print_parameters(self, printer: Printer) -> None:
        if self.mode.data in CONN_MODES:
            _bare(printer, self.mode.data)
        else:
            printer.print_string("[" + ", ".join(f"({a}, {b})" for a, b in self.value) + "]")  # type: ignore[misc]


class _Reopened:
    """A parser view whose next `[` was already consumed (so PairsAttr's list parser can continue)."""

    def __init__(self, parser: AttrParser):
        self._p = parser
        self.Delimiter = parser.Delimiter

    def parse_comma_separated_list(self, delimiter, element):  # type: ignore[no-untyped-def]
        if self._p.parse_optional_punctuation("]") is not None:
            return []
        items = [element()]
        while self._p.parse_optional_punctuation(",") is not None:
            items.append(element())
        self._p.parse_punctuation("]")
        return items

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self._p, name)
