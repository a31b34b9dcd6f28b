"""tessel.he: a spec compiled to a verified program whose encrypted run on SEAL gives the
spec's meaning, the client/server split of encrypt/run/decrypt, what was chosen (parameters,
Galois keys) as the IR records it, the SEAL C++, and one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

import tessel
from tessel.runtime.errors import TesselError

DOT = """
func.func @dot(%a: !hev.vec<8>, %b: !hev.vec<8> {hev.public}) -> (!hev.vec<8> {hev.slots = array<i64: 0>})
    attributes {hev.spec} {
  %p = hev.spec.mul %a, %b : !hev.vec<8>
  %s = hev.spec.sum %p : !hev.vec<8>
  func.return %s : !hev.vec<8>
}
"""


@pytest.fixture(scope="module")
def dot() -> tessel.he.HeKernel:
    return tessel.he.compile(DOT, budget=30)


def test_encrypted_run_matches_the_spec(dot) -> None:
    rng = np.random.default_rng(3)
    for _ in range(2):
        a, b = rng.integers(0, 1000, 8), rng.integers(0, 1000, 8)
        got = dot(a, b=b)
        assert got[0] == int(a @ b) % 65537
        np.testing.assert_array_equal(got[dot.output_slots], dot.reference(a=a, b=b)[dot.output_slots])


def test_client_and_server_sides(dot) -> None:
    enc = dot.encrypt(a=np.arange(8), b=np.ones(8, np.int64))
    result = dot.run(enc)
    assert result.noise_budget > 0
    assert dot.decrypt(result)[0] == 28
    other = tessel.he.compile(DOT, budget=30)
    with pytest.raises(TesselError, match="another kernel"):
        other.run(enc)


def test_what_was_chosen_is_what_the_ir_says(dot) -> None:
    ir = dot.ir()
    name = dot.params.split(":")[0]
    assert f'hev.params = "{name}"' in ir
    steps = ", ".join(map(str, dot.galois_steps))
    assert f"hev.rotation_keys = array<i64: {steps}>" in ir
    assert dot.operations["rotate"] == ir.count("hev.rotate ")
    assert dot.inputs == ["a", "b"] and dot.slots == 8
    header = dot.seal_cpp()
    assert "seal/seal.h" in header and "dot_synth" in header


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda k: k(np.zeros(8, np.int64)), "input 'b' is missing"),
        (lambda k: k(a=np.zeros(8, np.int64), c=np.zeros(8, np.int64)), "no kernel input named c"),
        (lambda k: k(np.zeros(7, np.int64), np.zeros(8, np.int64)), "takes 8 integers"),
        (lambda k: k(np.zeros(8, np.float32), np.zeros(8, np.int64)), "takes 8 integers"),
    ],
)
def test_bad_inputs_are_one_line_errors(dot, call, message: str) -> None:
    with pytest.raises(TesselError, match=message) as err:
        call(dot)
    assert "\n" not in str(err.value)


def test_bad_specs_are_one_line_errors() -> None:
    with pytest.raises(TesselError, match="no spec @nope"):
        tessel.he.compile(DOT, "nope")
    with pytest.raises(TesselError, match="no such file"):
        tessel.he.compile("does/not/exist.mlir")
