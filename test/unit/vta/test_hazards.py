"""The hazard checker proves generated streams race-free and catches seeded token bugs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tessel.dialects.vta import isa
from tessel.dialects.vta.config import preset
from tessel.dialects.vta.hazards import check
from tessel.dialects.vta.layer import random_operands, resnet_layer
from tessel.dialects.vta.reference import conv2d
from tessel.passes.vta.emit.emitter import compile_layer
from tessel.targets.vta.runtime import run_layer

CFG = preset("pynq")


@pytest.fixture(scope="module")
def c9():
    layer = resnet_layer("C9")
    return layer, compile_layer(layer, CFG, vt=2)


def _first(prog, pred, start: int = 0) -> int:
    return next(k for k, i in enumerate(prog.insns) if k >= start and pred(i))


def test_generated_streams_are_race_free(c9):
    _, prog = c9
    report = check(prog)
    assert report.ok, report.lines(prog)


def test_dropped_pop_is_a_race(c9):
    """Compute no longer waits for the second step's load: its GEMM reads inp/wgt the load may
    still be writing (RAW), and the token it should have taken is left over."""
    _, prog = c9
    k = _first(prog, lambda i: isinstance(i, isa.GemmInsn) and i.pop_prev and not i.reset, 6)
    bad = replace(prog, insns=list(prog.insns))
    bad.insns[k] = replace(bad.insns[k], pop_prev=False)
    report = check(bad)
    assert not report.ok
    assert any(h.kind == "RAW" and h.buffer in ("inp", "wgt") and k in (h.first, h.second) for h in report.hazards)
    assert report.leftover == {"l2g": 1}


def test_dropped_buffer_free_pop_is_a_war_race(c9):
    """A load no longer waits until the GEMM two steps back released its slot (g2l)."""
    _, prog = c9
    k = _first(prog, lambda i: isinstance(i, isa.MemInsn) and i.module is isa.Module.LOAD and i.pop_next)
    bad = replace(prog, insns=list(prog.insns))
    bad.insns[k] = replace(bad.insns[k], pop_next=False)
    report = check(bad)
    assert any(h.kind == "WAR" and k in (h.first, h.second) for h in report.hazards)


def test_missing_push_deadlocks(c9):
    _, prog = c9
    k = _first(prog, lambda i: isinstance(i, isa.MemInsn) and i.push_next and i.module is isa.Module.LOAD)
    bad = replace(prog, insns=list(prog.insns))
    bad.insns[k] = replace(bad.insns[k], push_next=False)
    report = check(bad)
    assert report.deadlock is not None and "compute waits" in report.deadlock and "l2g" in report.deadlock


def test_missing_store_release_is_caught(c9):
    """Store never tells compute the accumulators are free again: compute deadlocks on s2g."""
    _, prog = c9
    k = _first(prog, lambda i: isinstance(i, isa.MemInsn) and i.store and i.push_prev)
    bad = replace(prog, insns=list(prog.insns))
    bad.insns[k] = replace(bad.insns[k], push_prev=False)
    report = check(bad)
    assert report.deadlock is not None and "s2g" in report.deadlock


def test_the_war_race_is_real(c9):
    """Run greedily (each module as far as its tokens allow), the load without its g2l pop
    overwrites a slot the GEMM has not consumed yet, and the output is wrong: the checker
    reports the race without needing such an unlucky schedule."""
    layer, prog = c9
    k = _first(prog, lambda i: isinstance(i, isa.MemInsn) and i.module is isa.Module.LOAD and i.pop_next)
    bad = replace(prog, insns=list(prog.insns))
    bad.insns[k] = replace(bad.insns[k], pop_next=False)
    x, w, b = random_operands(layer, 3)
    result = run_layer(layer, bad, x, w, b)
    assert not result.hazards.ok
    assert not np.array_equal(result.output, conv2d(layer, x, w, b))
