"""Attributes as parts of dictionary keys (which ops compute the same thing).

xDSL's attributes are frozen dataclasses compared by structure, so most can be a key as
they are; printing them to text instead (as the key builders did) cost more than the
passes' own work on an unrolled RNN (tens of thousands of types printed per compile). A
few hold unhashable data (a dictionary): those are keyed by their text."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping

from xdsl.ir import Attribute, Operation, SSAValue


def attr_key(attr: Attribute) -> Hashable:
    """`attr` itself where it hashes, else its printed form (equal attributes print alike)."""
    try:
        hash(attr)
    except TypeError:
        return str(attr)
    return attr


def attrs_key(attrs: Mapping[str, Attribute]) -> tuple[tuple[str, Hashable], ...]:
    """An op's properties or attributes, by name, as a key."""
    return tuple(sorted((name, attr_key(a)) for name, a in attrs.items()))


def ops_key(ops: Iterable[Operation], numbered: dict[SSAValue, Hashable]) -> tuple:
    """What a sequence of ops computes, as a key: each op and the ops nested in it, in walk
    order, by name, operands (`numbered`'s key for a value given there, the number of a
    value the ops define earlier, or its identity for any other), result types, properties
    and attributes (attrs_key), and each nested block's argument types and op count. Fills
    `numbered` with the values the ops define."""
    parts: list[tuple] = []
    for top in ops:
        for op in top.walk():
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        numbered[arg] = ("v", len(numbered))
                    parts.append(("block", tuple(a.type for a in block.args), len(block.ops)))
            operands = tuple(numbered.get(v, ("outside", id(v))) for v in op.operands)
            types = tuple(r.type for r in op.results)
            parts.append((op.name, operands, types, attrs_key(op.properties), attrs_key(op.attributes)))
            for r in op.results:
                numbered[r] = ("v", len(numbered))
    return tuple(parts)
