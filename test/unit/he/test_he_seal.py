"""The SEAL runtime shim: Galois elements (the step-vs-element trap), the replicated layout,
every operation against the reference semantics, key modes, and every example program
(hand-written baseline and Porcupine's) decrypting to its spec on SEAL."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tessel.dialects.context import make_context
from tessel.dialects.hev import costs, kernel
from tessel.dialects.hev.params import DEFAULT, by_name
from tessel.dialects.hev.reference import run_kernel
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import read_module
from tessel.passes.he.model.choice import select
from tessel.passes.he.model.estimate import noise_left
from tessel.pipelines.he import translate_seal_cpp as translate
from tessel.targets.seal.execute import execute
from tessel.targets.seal.keys import galois_element, signed_power_of_two_steps
from tessel.targets.seal.runtime import SealRuntime

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "he"
COSTS = ROOT / "test" / "lit" / "passes" / "he" / "Inputs" / "costs.json"
T = 65537
SMALL = by_name("n4096-q109")


@pytest.fixture(scope="module")
def runtime():
    return SealRuntime(SMALL, T, 8, rotations=[1, -1, 3, -3, 4, 7], relinearize=True)


def test_galois_elements_follow_seal():
    # SEAL's GaloisTool: step k > 0 -> 3^k mod 2N; k < 0 -> 3^(N/2 - |k|) mod 2N
    assert galois_element(1, 8192) == 3
    assert galois_element(2, 8192) == 9
    assert galois_element(-1, 8192) == pow(3, 4095, 16384)
    with pytest.raises(ValueError):
        galois_element(4096, 8192)


def test_rotations_match_the_reference(runtime):
    x = np.arange(8) * 11 + 5
    c = runtime.encrypt(x)
    for k in (1, -1, 3, -3, 4, 7):
        assert list(runtime.decrypt(runtime.rotate(c, k))) == list(np.roll(x, -k)), k


def test_steps_passed_as_elements_would_be_wrong():
    """The trap he.md warns about: tenseal's create_galois_keys(list) takes Galois
    *elements*. Steps [1, 2] are refused (2 is not a valid element); step [3] is read as
    element 3, which is the key for a rotation by 1, so a rotation by 3 finds no key.
    The runtime converts steps to elements and gets both right."""
    import tenseal.sealapi as seal

    rt = SealRuntime(SMALL, T, 8, rotations=[])
    with pytest.raises(ValueError, match="Galois element is not valid"):
        rt.keygen.create_galois_keys([1, 2], seal.GaloisKeys())
    keys = seal.GaloisKeys()
    rt.keygen.create_galois_keys([3], keys)
    out = seal.Ciphertext()
    with pytest.raises(ValueError, match="Galois key not present"):
        rt.evaluator.rotate_rows(rt.encrypt(np.arange(8)), 3, keys, out)
    rt.evaluator.rotate_rows(rt.encrypt(np.arange(8)), 1, keys, out)
    assert list(rt.decrypt(out)) == list(np.roll(np.arange(8), -1))
    ours = SealRuntime(SMALL, T, 8, rotations=[3, 2])
    for k in (3, 2):
        assert list(ours.decrypt(ours.rotate(ours.encrypt(np.arange(8)), k))) == list(np.roll(np.arange(8), -k))


@settings(max_examples=60, deadline=None)
@given(st.integers(-5000, 5000))
def test_power_of_two_decomposition(step):
    parts = signed_power_of_two_steps(step)
    assert sum(parts) == step
    assert all(abs(p) & (abs(p) - 1) == 0 for p in parts)
    assert len(parts) <= max(1, abs(step).bit_length())


def test_pow2_keys_compose_rotations():
    rt = SealRuntime(SMALL, T, 16, rotations=[7, -5, 3], keys="pow2")
    assert set(rt.key_steps) <= {1, -1, 2, -2, 4, -4, 8, -8}
    x = np.arange(16) + 100
    c = rt.encrypt(x)
    for k in (7, -5, 3):
        assert list(rt.decrypt(rt.rotate(c, k))) == list(np.roll(x, -k))


def test_operations_match_the_reference(runtime):
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, T, 8), rng.integers(0, T, 8)
    cx, cy, py = runtime.encrypt(x), runtime.encrypt(y), runtime.encode(y)
    r = runtime
    cases = {
        "add": (r.add(cx, cy), x + y),
        "sub": (r.sub(cx, cy), x - y),
        "negate": (r.negate(cx), -x),
        "multiply+relinearize": (r.relinearize(r.multiply(cx, cy)), x * y),
        "square": (r.relinearize(r.multiply(cx, cx)), x * x),
        "size-3 decrypt": (r.multiply(cx, cy), x * y),
        "add_plain": (r.add_plain(cx, py), x + y),
        "sub_plain": (r.sub_plain(cx, py), x - y),
        "multiply_plain": (r.multiply_plain(cx, py), x * y),
        "mod_switch": (r.mod_switch(cx), x),
        "constant": (r.multiply_plain(cx, r.constant(-3)), -3 * x),
    }
    for name, (ct, want) in cases.items():
        assert list(r.decrypt(ct)) == list(want.astype(object) % T), name
        assert r.noise_budget(ct) > 0, name


def test_runtime_errors():
    with pytest.raises(TesselError, match="4096-slot vectors do not fit N=4096"):
        SealRuntime(SMALL, T, 4096)
    with pytest.raises(TesselError, match="does not support batching at N=4096"):
        SealRuntime(SMALL, 12289, 8)  # prime, 1 mod 4096 but not mod 8192
    rt = SealRuntime(SMALL, T, 8, rotations=[1])
    with pytest.raises(TesselError, match="no Galois key for a rotation by 2"):
        rt.rotate(rt.encrypt(np.arange(8)), 2)


FILES = sorted(EXAMPLES.glob("*.mlir"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_example_programs_decrypt_correctly(path):
    """Every baseline and Porcupine program, at the parameters selection picks (from the
    shipped snapshot of the measured table) for its plaintext modulus, decrypts to the spec
    at every slot that matters; the noise estimate is not optimistic by more than a few bits."""
    module = read_module(make_context(), str(path))
    table = costs.load(str(COSTS))
    for prog in kernel.programs(module):
        spec = kernel.spec_of(module, prog)
        iface = kernel.interface(spec)
        rng = np.random.default_rng(11)
        inputs = iface.random_inputs(rng)
        choice = select(prog, table)
        run = execute(prog, inputs, choice.params, reps=1)
        want = run_kernel(module, spec, inputs, iface.plain_modulus)
        slots = list(iface.output_slots) if iface.output_slots else list(range(iface.slots))
        assert np.array_equal(run.output[slots], want[slots]), prog.sym_name.data
        assert run.noise_budget > 0
        assert run.noise_budget >= choice.estimated_budget - 4, (
            prog.sym_name.data,
            run.noise_budget,
            choice.estimated_budget,
        )


def test_default_parameters_run_porcupine_programs():
    module = read_module(make_context(), str(EXAMPLES / "roberts_cross.mlir"))
    prog = kernel.lookup(module, "roberts_cross_porcupine")
    x = np.random.default_rng(0).integers(0, 256, 4096)
    run = execute(prog, [x], DEFAULT, reps=1)
    want = run_kernel(module, kernel.spec_of(module, prog), [x], T)
    assert np.array_equal(run.output, want)


def test_selection_prefers_small_moduli_and_respects_depth(cost_table):
    module = read_module(make_context(), str(EXAMPLES / "polynomial_regression.mlir"))
    for prog in kernel.programs(module):
        choice = select(prog, cost_table)
        assert len(choice.params.resolved_bits()) >= 3, "depth 2 needs at least two levels"
        assert noise_left(prog, cost_table.entry(choice.params), T) >= 6
    module = read_module(make_context(), str(EXAMPLES / "box_blur.mlir"))
    choice = select(kernel.lookup(module, "box_blur_porcupine"), cost_table)
    assert choice.params.poly_modulus_degree == 8192 and len(choice.params.resolved_bits()) == 2


def test_missing_cost_table_names_the_profiler(tmp_path):
    with pytest.raises(TesselError, match="python -m tessel.targets.seal.profile"):
        costs.load(str(tmp_path / "none.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"plain_modulus": 65537, "params": {"n4096-q109": {"latency_us": {}, "noise_bits": {}}}}')
    with pytest.raises(TesselError, match="lacks add"):
        costs.load(str(bad))


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to compile the generated C++")
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_generated_cpp_compiles(path, tmp_path):
    """The seal-cpp output compiles against SEAL's declared API (a stub of its signatures)."""
    header = tmp_path / "kernel.h"
    header.write_text(translate(str(path), {}))
    source = tmp_path / "kernel.cpp"
    source.write_text('#include "kernel.h"\n')
    stub = Path(__file__).parent / "seal_stub"
    subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", f"-I{stub}", str(source)], check=True)
