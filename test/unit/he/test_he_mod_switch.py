"""he-mod-switch: the plan is the cheapest under the cost model (checked against exhaustive
enumeration), the rewritten programs verify exactly and decrypt on SEAL to what the
originals decrypt to, with the noise budget the estimate promised (within a few bits)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context

from tessel.dialects import hev
from tessel.dialects.context import make_context
from tessel.dialects.hev import costs, kernel
from tessel.dialects.hev.metrics import OP_NAMES as _OP_NAMES
from tessel.dialects.hev.metrics import max_level
from tessel.dialects.hev.params import DEFAULT, by_name
from tessel.dialects.hev.reference import run_kernel
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import read_module
from tessel.passes.he.mod_switch import HeModSwitch, apply_plan
from tessel.passes.he.model.choice import select
from tessel.passes.he.model.estimate import latency_us, noise_left
from tessel.passes.he.model.levels import LevelPlan, plan_levels
from tessel.passes.he.synth.verify import verify
from tessel.targets.seal.execute import execute, make_runtime

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "he"
COSTS = ROOT / "test" / "lit" / "passes" / "he" / "Inputs" / "costs.json"
FILES = sorted(EXAMPLES.glob("*.mlir"))
T = 65537


def _switched(path: Path):
    module = read_module(make_context(), str(path))
    HeModSwitch(costs=str(COSTS)).apply(Context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_switched_programs_decrypt_like_the_originals(path):
    """Differential: every hand-written and Porcupine program, before and after the pass, on
    the same encrypted inputs at N=8192 with the default 218-bit q: identical decryptions
    (equal to the spec), a positive budget left, the estimate at most 4 bits optimistic,
    and an exact re-verification of the rewritten IR."""
    original = read_module(make_context(), str(path))
    module = _switched(path)
    table = costs.load(str(COSTS))
    for prog in kernel.programs(module):
        name = prog.sym_name.data
        before = kernel.lookup(original, name)
        assert max_level(prog) > 0, f"{name}: nothing switched"
        assert prog.attributes["hev.params"].data == DEFAULT.name
        assert verify(module, prog).ok, name
        spec = kernel.spec_of(module, prog)
        iface = kernel.interface(spec)
        rng = np.random.default_rng(5)
        inputs = iface.random_inputs(rng)
        want = run_kernel(module, spec, inputs, iface.plain_modulus)
        slots = list(iface.output_slots) if iface.output_slots else list(range(iface.slots))
        rt = make_runtime(before, DEFAULT)  # the same keys serve both
        a = execute(before, inputs, DEFAULT, runtime=rt)
        b = execute(prog, inputs, DEFAULT, runtime=rt)
        assert np.array_equal(a.output[slots], want[slots]), name
        assert np.array_equal(b.output[slots], a.output[slots]), name
        estimate = prog.attributes["hev.noise_estimate"].value.data
        assert estimate == int(noise_left(prog, table.entry(DEFAULT), iface.plain_modulus))
        assert b.noise_budget > 0 and b.noise_budget >= estimate - 4, (name, b.noise_budget, estimate)
        summary = prog.attributes["hev.mod_switch"].data
        assert summary["estimated_us"].value.data < summary["unswitched_us"].value.data
        assert summary["estimated_us"].value.data == round(latency_us(prog, table.entry(DEFAULT)))


def _monotone_assignments(fn, top):
    """Every level assignment of the server ops where no op runs above its operands' levels."""
    ops = [op for op in fn.body.blocks[0].ops if type(op) in _OP_NAMES]
    level = {}

    def rec(i):
        if i == len(ops):
            yield dict(zip(ops, (level[op.results[0]] for op in ops), strict=True))
            return
        lo = max((level.get(o, 0) for o in ops[i].operands), default=0)
        for k in range(lo, top + 1):
            level[ops[i].results[0]] = k
            yield from rec(i + 1)
        del level[ops[i].results[0]]

    yield from rec(0)


@pytest.mark.parametrize(
    "kernel_name,program",
    [
        ("box_blur", "box_blur_baseline"),
        ("dot_product", "dot_product_porcupine"),
        ("linear_regression", "linear_regression_baseline"),
        ("polynomial_regression", "polynomial_regression_porcupine"),
        ("roberts_cross", "roberts_cross_baseline"),
    ],
)
def test_plan_is_the_cheapest_assignment(kernel_name, program):
    """Branch and bound against brute force: every monotone level assignment, rewritten and
    priced by the same estimators; the plan's cost is the minimum over those that keep the
    margin, and the plan's internal cost equals the estimate of the IR it writes."""
    table = costs.load(str(COSTS))
    entry = table.entry(DEFAULT)
    path = EXAMPLES / f"{kernel_name}.mlir"
    fn = kernel.lookup(read_module(make_context(), str(path)), program)
    plan = plan_levels(fn, entry, T, margin=6)
    assert plan is not None and plan.optimal

    def rewritten(levels: list[int]):
        copy = fn.clone()
        ops = [op for op in copy.body.blocks[0].ops if type(op) in _OP_NAMES]
        apply_plan(copy, LevelPlan(dict(zip(ops, levels, strict=True)), 0.0, 0.0, 0.0, True))
        return copy

    best, count = float("inf"), 0
    for levels in _monotone_assignments(fn, entry.data_levels - 1):
        copy = rewritten(list(levels.values()))
        count += 1
        if noise_left(copy, entry, T) >= 6:
            best = min(best, latency_us(copy, entry))
    assert count > 10
    assert latency_us(rewritten(list(plan.levels.values())), entry) == pytest.approx(plan.estimated_us)
    assert plan.estimated_us == pytest.approx(best)


def test_nothing_to_do():
    """A one-prime chain, a margin the program cannot keep, or a program that already
    switches: left as it is."""
    table = costs.load(str(COSTS))
    fn = kernel.lookup(read_module(make_context(), str(EXAMPLES / "box_blur.mlir")), "box_blur_porcupine")
    assert plan_levels(fn, table.entry(by_name("n8192-q60x2")), T) is None
    assert plan_levels(fn, table.entry(DEFAULT), T, margin=1000) is None
    module = _switched(EXAMPLES / "box_blur.mlir")
    prog = kernel.lookup(module, "box_blur_porcupine")
    assert plan_levels(prog, table.entry(DEFAULT), T) is None
    text = str(module)
    HeModSwitch(costs=str(COSTS)).apply(Context(), module)
    assert str(module) == text  # idempotent


def test_selection_needs_enough_levels():
    """A program switched three times runs only on chains with at least four data primes,
    and selection prices it level by level."""
    table = costs.load(str(COSTS))
    prog = kernel.lookup(_switched(EXAMPLES / "box_blur.mlir"), "box_blur_porcupine")
    assert max_level(prog) == 3
    choice = select(prog, table)
    assert len(choice.params.resolved_bits()) - 1 >= 4
    feasible = {name for name, _, _, ok in choice.considered if ok}
    assert feasible <= {"n8192-q218", "n16384-q438"}
    assert not any(isinstance(op, hev.RotateOp) and op.result.type.level.data != 3 for op in prog.body.walk())


def test_cost_table_levels(tmp_path):
    table = costs.load(str(COSTS))
    entry = table.entry(DEFAULT)
    assert entry.data_levels == 4
    fresh = [entry.level(k).fresh_budget(T) for k in range(4)]
    assert fresh == sorted(fresh, reverse=True) and fresh[-1] > 0
    assert all(entry.level(k).latency_us["rotate"] < entry.level(k - 1).latency_us["rotate"] for k in (1, 2, 3))
    with pytest.raises(TesselError, match="has no level 4"):
        entry.level(4)
    data = json.loads(COSTS.read_text())
    del data["params"]["n8192-q218"]["levels"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(data))
    with pytest.raises(
        TesselError, match="no figures for level 1 of n8192-q218; rerun: python -m tessel.targets.seal.profile"
    ):
        costs.load(str(bare)).entry(DEFAULT).level(1)
    data["params"]["n8192-q218"]["levels"] = [{"latency_us": {}, "noise_bits": {}}]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(TesselError, match="level 1 of n8192-q218 lacks add"):
        costs.load(str(bad))
