"""The exact verifier: every example program is proven equal to its spec at every slot that
matters; small wrong programs (a rotation off by one, swapped operands, a missing op, a
Hamming program outside its bits domain) are caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from tessel.dialects import hev
from tessel.dialects.context import make_context
from tessel.dialects.hev import kernel
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import parse_module, read_module
from tessel.passes.he.synth.verify import verify

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "he"
FILES = sorted(EXAMPLES.glob("*.mlir"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_examples_verify(path):
    module = read_module(make_context(), str(path))
    programs = kernel.programs(module)
    kinds = {p.sym_name.data.removeprefix(path.stem + "_") for p in programs}
    assert "baseline" in kinds and kinds <= {"baseline", "porcupine"}  # Porcupine's: its suite only
    for p in programs:
        verdict = verify(module, p)
        assert verdict.ok, (p.sym_name.data, verdict)
        iface = kernel.interface(p)
        assert verdict.slots_checked == (len(iface.output_slots) if iface.output_slots else iface.slots)


def _module(path: Path):
    return read_module(make_context(), str(path))


def test_wrong_rotation_is_caught():
    module = _module(EXAMPLES / "box_blur.mlir")
    prog = kernel.lookup(module, "box_blur_porcupine")
    rot = next(op for op in prog.body.walk() if isinstance(op, hev.RotateOp))
    rot.properties["offset"] = type(rot.offset)(-63, 64)
    verdict = verify(module, prog)
    assert not verdict.ok and verdict.first_bad_slot == 0


def test_swapped_operands_are_caught():
    module = _module(EXAMPLES / "sobel_gx.mlir")
    prog = kernel.lookup(module, "sobel_gx_porcupine")
    sub = next(op for op in prog.body.walk() if isinstance(op, hev.SubOp))
    a, b = sub.operands
    sub.operands = [b, a]
    assert not verify(module, prog).ok


def test_hamming_needs_its_bits_domain():
    """(2 - s) * s equals a xor b only when a, b are 0 or 1: dropping hev.domain = #hev<domain bits>
    from the spec must make Porcupine's program wrong."""
    module = _module(EXAMPLES / "hamming_distance.mlir")
    prog = kernel.lookup(module, "hamming_distance_porcupine")
    assert verify(module, prog).ok
    for fn in (kernel.lookup(module, "hamming_distance"), prog):
        fn.arg_attrs = type(fn.arg_attrs)([type(d)({}) for d in fn.arg_attrs.data])
    assert not verify(module, prog).ok


def test_listed_slots_are_the_ones_checked():
    """hev.slots = [0] checks one slot. Every spec op is rotation-equivariant, so the
    rotate-and-add tree in fact leaves the full sum in every slot: checking all 8 slots
    passes too (the synthesizer relies on this equivariance to check slot 0 only)."""
    module = _module(EXAMPLES / "dot_product.mlir")
    prog = kernel.lookup(module, "dot_product_porcupine")
    assert verify(module, prog).slots_checked == 1
    for fn in (kernel.lookup(module, "dot_product"), prog):
        fn.res_attrs = None
    verdict = verify(module, prog)
    assert verdict.ok and verdict.slots_checked == 8


STRUCTURE = """
func.func @s(%x: !hev.vec<4>, %b: !hev.vec<4> {hev.public}) -> !hev.vec<4> attributes {hev.spec} {
  %m = hev.spec.mul %x, %b : !hev.vec<4>
  func.return %m : !hev.vec<4>
}
func.func @p(%x: !hev.vec<4>, %b: !hev.vec<4> {hev.public}) -> !hev.vec<4> attributes {hev.implements = @s} {
  BODY
}
"""


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "%c = hev.encrypt %x : !hev.vec<4> -> !hev.ct<4>\n  %e = hev.encrypt %b : !hev.vec<4> -> !hev.ct<4>\n"
            "  %m = hev.multiply %c, %e : !hev.ct<4> -> !hev.ct<4, size = 3>\n  %o = hev.decrypt %m : !hev.ct<4, size = 3> -> !hev.vec<4>\n  func.return %o : !hev.vec<4>",
            "argument #1 is public (hev.public): encode it with hev.encode, not 'hev.encrypt'",
        ),
        (
            "%c = hev.encode %x : !hev.vec<4> -> !hev.pt<4>\n  %e = hev.encode %b : !hev.vec<4> -> !hev.pt<4>\n  func.return %x : !hev.vec<4>",
            "argument #0 is secret: encrypt it with hev.encrypt, not 'hev.encode'",
        ),
        (
            "%c = hev.encrypt %x : !hev.vec<4> -> !hev.ct<4>\n  %e = hev.encode %b : !hev.vec<4> -> !hev.pt<4>\n"
            "  %m = hev.multiply_plain %c, %e : !hev.ct<4>, !hev.pt<4>\n  %o = hev.spec.const 1 : !hev.vec<4>\n  func.return %o : !hev.vec<4>",
            "'hev.spec.const' cannot appear in program @p: a program is written with hev program ops",
        ),
    ],
)
def test_structure_errors(body, message):
    module = parse_module(make_context(), STRUCTURE.replace("BODY", body))
    with pytest.raises(TesselError, match=message.replace("(", r"\(").replace(")", r"\)")):
        verify(module, kernel.lookup(module, "p"))


def test_implements_must_name_a_spec():
    module = parse_module(
        make_context(), STRUCTURE.replace("BODY", "func.return %x : !hev.vec<4>").replace("@s}", "@nothing}")
    )
    with pytest.raises(TesselError, match="@p implements @nothing, which is not a spec function in this module"):
        verify(module, kernel.lookup(module, "p"))
