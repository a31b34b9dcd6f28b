"""Attributes as parts of dictionary keys (which ops compute the same thing).

xDSL's attributes are frozen dataclasses compared by structure, so most can be a key as
they are; printing them to text instead (as the key builders did) cost more than the
passes' own work on an unrolled RNN (tens of thousands of types printed per compile). A
few hold unhashable data (a dictionary): those are keyed by their text."""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from xdsl.ir import Attribute


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
