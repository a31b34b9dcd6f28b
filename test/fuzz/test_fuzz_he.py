"""Differential fuzzing of the HE runtime: random `hev` programs (adds, subtractions,
multiplications with relinearization, plaintext multiplications, rotations, negations over
two inputs) run on SEAL must decrypt to what their plaintext semantics (the hev reference
interpreter, exact mod t) compute."""

from __future__ import annotations

from profile import fuzz

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tessel.dialects.context import make_context
from tessel.dialects.hev.params import DEFAULT
from tessel.dialects.hev.reference import run_kernel
from tessel.ir.source import parse_module
from tessel.targets.seal.execute import execute

SLOTS = 8
T = 65537
MAX_DEPTH = 2  # multiplicative depth the default parameters carry with room to spare


@st.composite
def programs(draw) -> str:
    """A straight-line BFV program as hev IR: %a secret, %b public."""
    ct = f"!hev.ct<{SLOTS}>"
    lines = [
        f"%c0 = hev.encrypt %a : !hev.vec<{SLOTS}> -> {ct}",
        f"%pb = hev.encode %b : !hev.vec<{SLOTS}> -> !hev.pt<{SLOTS}>",
    ]
    values = [("%c0", 0)]  # (name, multiplicative depth)
    for i in range(1, draw(st.integers(1, 10)) + 1):
        x, dx = values[draw(st.integers(0, len(values) - 1))]
        y, dy = values[draw(st.integers(0, len(values) - 1))]
        kinds = ["add", "sub", "rotate", "negate", "multiply_plain"] + (["multiply"] if max(dx, dy) < MAX_DEPTH else [])
        kind = draw(st.sampled_from(kinds))
        name = f"%c{i}"
        if kind in ("add", "sub"):
            lines.append(f"{name} = hev.{kind} {x}, {y} : {ct}")
            values.append((name, max(dx, dy)))
        elif kind == "rotate":
            step = draw(st.sampled_from([k for k in range(-SLOTS + 1, SLOTS) if k]))
            lines.append(f"{name} = hev.rotate {x} by {step} : {ct}")
            values.append((name, dx))
        elif kind == "negate":
            lines.append(f"{name} = hev.negate {x} : {ct}")
            values.append((name, dx))
        elif kind == "multiply_plain":
            lines.append(f"{name} = hev.multiply_plain {x}, %pb : {ct}, !hev.pt<{SLOTS}>")
            values.append((name, dx))
        else:
            lines.append(f"{name}_3 = hev.multiply {x}, {y} : {ct} -> !hev.ct<{SLOTS}, size = 3>")
            lines.append(f"{name} = hev.relinearize {name}_3 : !hev.ct<{SLOTS}, size = 3> -> {ct}")
            values.append((name, max(dx, dy) + 1))
    last = values[-1][0]
    lines.append(f"%out = hev.decrypt {last} : {ct} -> !hev.vec<{SLOTS}>")
    lines.append(f"func.return %out : !hev.vec<{SLOTS}>")
    body = "\n  ".join(lines)
    return f"func.func @p(%a: !hev.vec<{SLOTS}>, %b: !hev.vec<{SLOTS}> {{hev.public}}) -> !hev.vec<{SLOTS}> {{\n  {body}\n}}\n"


@fuzz(ci=15, long=6000)
@given(programs(), st.integers(0, 2**32 - 1))
def test_random_programs_on_seal_equal_their_plaintext_semantics(text: str, seed: int) -> None:
    module = parse_module(make_context(), text)
    (fn,) = list(module.ops)
    rng = np.random.default_rng(seed)
    inputs = [rng.integers(0, T, SLOTS), rng.integers(0, T, SLOTS)]
    want = run_kernel(module, fn, inputs, T) % T
    result = execute(fn, inputs, DEFAULT)
    got = np.asarray(result.output, dtype=np.int64) % T
    assert list(got) == list(want), text
    assert result.noise_budget > 0
