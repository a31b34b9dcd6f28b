"""Typed attributes of `hev` kernels.

    %b: !hev.vec<4> {hev.domain = #hev<domain bits>}    every slot is 0 or 1

`hev.domain` says which values an argument's slots may take: `any` (every integer mod t,
the default) or `bits` (0 or 1; the synthesizer and the exact verifier use x*x = x).
"""

from __future__ import annotations

from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum


class Domain(StrEnum):
    """The values an argument's slots may take."""

    ANY = "any"
    BITS = "bits"


@irdl_attr_definition
class DomainAttr(EnumAttribute[Domain], SpacedOpaqueSyntaxAttribute):
    """`#hev<domain any>` or `#hev<domain bits>`."""

    name = "hev.domain"
