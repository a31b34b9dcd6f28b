"""Corrections to xDSL 0.74 behaviour that Tessel depends on, applied once on import.

Keep each fix small, explain the upstream bug, and drop it when the pinned xDSL has it.
"""

from __future__ import annotations

import struct

from xdsl.dialects.builtin import AnyFloat, BFloat16Type, Float16Type, Float32Type, Float64Type
from xdsl.parser.attribute_parser import AttrParser

_BITS = {Float16Type: "<e", Float32Type: "<f", Float64Type: "<d"}


def _hex_float_literals_are_bit_patterns() -> None:
    """xDSL prints NaN/Inf inside `dense<[...]>` as hex bit patterns (as MLIR does) but parses
    hex literals back as integers converted to float (0x7fc00000 -> 2.14e9), so a module
    holding a NaN does not round-trip. Interpret a hex literal of a float element as its bits."""
    element = AttrParser._TensorLiteralElement
    original = element.to_type

    def to_type(self, parser, type):
        if isinstance(type, AnyFloat) and self.span.text.lower().startswith("0x"):
            bits = int(self.span.text, 16)
            if isinstance(type, BFloat16Type):
                return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
            fmt = _BITS.get(type.__class__)
            if fmt is not None:
                size = struct.calcsize(fmt)
                return struct.unpack(fmt, bits.to_bytes(size, "little"))[0]
        return original(self, parser, type)

    element.to_type = to_type  # type: ignore[method-assign]  # the fix: patching xDSL's method


def _affine_rsub_subtracts_the_right_way() -> None:
    """xDSL's AffineExpr.__rsub__ returns self - other, so `2 - d0` builds d0 - 2."""
    from xdsl.ir.affine import AffineExpr

    AffineExpr.__rsub__ = lambda self, other: (-self) + other  # type: ignore[method-assign]  # patching xDSL


_hex_float_literals_are_bit_patterns()
_affine_rsub_subtracts_the_right_way()
