"""The vta dialect's text is exact and complete: every op and attribute appears in the lit test
of the dialect, and custom -> IR -> custom and generic -> IR -> custom print the same text."""

from __future__ import annotations

from pathlib import Path

from tessel.dialects.context import make_context
from tessel.dialects.vta import VTA
from tessel.ir.source import parse_module, print_module, verify

OPS_MLIR = Path(__file__).resolve().parents[2] / "lit" / "dialects" / "vta" / "ops.mlir"


def _chunks() -> list[str]:
    return [c for c in OPS_MLIR.read_text().split("// -----") if "vta." in c]


def test_print_parse_print_is_identical():
    ctx = make_context()
    for chunk in _chunks():
        module = parse_module(ctx, chunk, OPS_MLIR.name)
        verify(module)
        custom = print_module(module)
        generic = print_module(module, generic=True)
        assert print_module(parse_module(ctx, custom)) == custom
        assert print_module(parse_module(ctx, generic)) == custom


def test_every_op_and_attribute_is_in_the_lit_test():
    ctx = make_context()
    generic = "".join(print_module(parse_module(ctx, c, OPS_MLIR.name), generic=True) for c in _chunks())
    missing = [op.name for op in VTA.operations if f'"{op.name}"' not in generic]
    missing += [
        attr.name
        for attr in VTA.attributes
        if f"#{attr.name}" not in generic and f"#vta<{attr.name[4:]} " not in generic
    ]
    assert not missing, f"without a round-trip lit test: {missing}"
