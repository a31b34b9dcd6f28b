"""Reference semantics of every hev op (exact integers mod t), and the two independent
evaluators (the xDSL interpreter on numpy, the lazy per-slot evaluator the verifier uses)
agreeing on every example program."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tessel.dialects.context import make_context
from tessel.dialects.hev import kernel
from tessel.dialects.hev.reference import IntDomain, run_kernel, slot_evaluator
from tessel.ir.source import parse_module, read_module

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "he"

T = 65537

OPS = """
func.func @f(%x: !hev.vec<8>, %y: !hev.vec<8>) -> !hev.vec<8> attributes {hev.implements = @s} {
  %a = hev.encrypt %x : !hev.vec<8> -> !hev.ct<8>
  %b = hev.encrypt %y : !hev.vec<8> -> !hev.ct<8>
  %p = hev.encode %y : !hev.vec<8> -> !hev.pt<8>
  %k = hev.constant -3 : !hev.pt<8>
  %OP
  %o = hev.decrypt %r : !hev.ct<8> -> !hev.vec<8>
  func.return %o : !hev.vec<8>
}
"""

CASES = {
    "%r = hev.add %a, %b : !hev.ct<8>": lambda x, y: x + y,
    "%r = hev.sub %a, %b : !hev.ct<8>": lambda x, y: x - y,
    "%m = hev.multiply %a, %b : !hev.ct<8> -> !hev.ct<8, size = 3>\n  %r = hev.relinearize %m : !hev.ct<8, size = 3> -> !hev.ct<8>": lambda x, y: (
        x * y
    ),
    "%r = hev.negate %a : !hev.ct<8>": lambda x, y: -x,
    "%r = hev.add_plain %a, %p : !hev.ct<8>, !hev.pt<8>": lambda x, y: x + y,
    "%r = hev.sub_plain %a, %k : !hev.ct<8>, !hev.pt<8>": lambda x, y: x + 3,
    "%r = hev.multiply_plain %a, %k : !hev.ct<8>, !hev.pt<8>": lambda x, y: -3 * x,
    "%r = hev.rotate %a by 3 : !hev.ct<8>": lambda x, y: np.array([x[(i + 3) % 8] for i in range(8)]),
    "%r = hev.rotate %a by -2 : !hev.ct<8>": lambda x, y: np.array([x[(i - 2) % 8] for i in range(8)]),
    "%s = hev.mod_switch %a : !hev.ct<8> -> !hev.ct<8, level = 1>\n  %r = hev.add %s, %s : !hev.ct<8, level = 1>": lambda x, y: (
        2 * x
    ),
}


@pytest.mark.parametrize("body", list(CASES), ids=lambda b: b.split("=")[1].split()[0])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_program_op_semantics(body, data):
    x = np.array(data.draw(st.lists(st.integers(0, T - 1), min_size=8, max_size=8)))
    y = np.array(data.draw(st.lists(st.integers(0, T - 1), min_size=8, max_size=8)))
    text = OPS.replace("%OP", body)
    if "level = 1" in body:
        text = text.replace("hev.decrypt %r : !hev.ct<8>", "hev.decrypt %r : !hev.ct<8, level = 1>")
    module = parse_module(make_context(), text)
    fn = module.ops.first
    got = run_kernel(module, fn, [x, y], T)
    want = np.asarray(CASES[body](x.astype(object), y.astype(object)), dtype=object) % T
    assert list(got) == list(want)


SPEC = """
func.func @s(%x: !hev.vec<8>, %y: !hev.vec<8>) -> !hev.vec<8> attributes {hev.spec} {
  %sh = hev.spec.shift %x by -3 : !hev.vec<8>
  %two = hev.spec.const 2 : !hev.vec<8>
  %m = hev.spec.mul %sh, %two : !hev.vec<8>
  %d = hev.spec.sub %m, %y : !hev.vec<8>
  %n = hev.spec.neg %d : !hev.vec<8>
  %p = hev.spec.mul %n, %x : !hev.vec<8>
  %a = hev.spec.add %p, %y : !hev.vec<8>
  %t = hev.spec.sum %a : !hev.vec<8>
  func.return %t : !hev.vec<8>
}
"""


@settings(max_examples=30, deadline=None)
@given(
    x=st.lists(st.integers(0, T - 1), min_size=8, max_size=8), y=st.lists(st.integers(0, T - 1), min_size=8, max_size=8)
)
def test_spec_op_semantics(x, y):
    module = parse_module(make_context(), SPEC)
    got = run_kernel(module, module.ops.first, [np.array(x), np.array(y)], T)
    a = [(-(2 * x[(i - 3) % 8] - y[i]) * x[i] + y[i]) for i in range(8)]
    assert list(got) == [sum(a) % T] * 8


EXAMPLE_FILES = sorted(EXAMPLES.glob("*.mlir"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.stem for p in EXAMPLE_FILES])
def test_interpreter_and_slot_evaluator_agree(path):
    """Two implementations of the same semantics: numpy through xDSL's interpreter, and the
    lazy per-slot evaluator the exact verifier is built on."""
    module = read_module(make_context(), str(path))
    rng = np.random.default_rng(7)
    for fn in kernel.functions(module):
        iface = kernel.interface(fn)
        inputs = [rng.integers(0, 2 if a.domain == "bits" else T, iface.slots) for a in iface.arguments]
        full = run_kernel(module, fn, inputs, T)
        at = slot_evaluator(fn, IntDomain(T, inputs), iface.slots)
        for slot in rng.choice(iface.slots, size=min(iface.slots, 40), replace=False):
            assert at(int(slot)) == full[slot], (fn.sym_name.data, slot)
