"""Long runs survive being killed: tuning (`tessel-tune`) and synthesis (`he-synthesize`,
`coll-synthesize` with a results cache). Each test starts the real tool as a process,
kills it (SIGKILL, or SIGTERM for a clean stop) once it has recorded something, checks that
what was recorded is whole, and reruns the same command, which must resume: nothing
recorded is lost or redone.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects.coll import AlgorithmOp, topology_op
from tessel.dialects.coll.topologies import builtin
from tessel.dialects.context import make_context
from tessel.ir.source import parse_module, print_module, verify
from tessel.passes.sched.tuning.records import Records, knob_id

MATMUL = (Path(__file__).resolve().parents[1] / "Inputs" / "matmul_kernel.mlir").read_text()

# A fast spec first, then one that takes z3 several seconds: the kill lands in between.
SPECS = """
func.func @dot(%a: !hev.vec<8>, %b: !hev.vec<8> {hev.public}) -> (!hev.vec<8> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %p = hev.spec.mul %a, %b : !hev.vec<8>
  %s = hev.spec.sum %p : !hev.vec<8>
  func.return %s : !hev.vec<8>
}
func.func @l2(%a: !hev.vec<4>, %b: !hev.vec<4>) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %d = hev.spec.sub %a, %b : !hev.vec<4>
  %sq = hev.spec.mul %d, %d : !hev.vec<4>
  %s = hev.spec.sum %sq : !hev.vec<4>
  func.return %s : !hev.vec<4>
}
"""


def tool(name: str, *args: str) -> list[str]:
    return [sys.executable, "-m", f"tessel.tools.{name}", *args]


def kill_when(
    command: list[str], ready: Callable[[], bool], sig: signal.Signals, limit: float = 240.0
) -> subprocess.CompletedProcess:
    """Start `command`, send `sig` once `ready()` holds, and wait for the process to end."""
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL
    )
    deadline = time.monotonic() + limit
    while not ready():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the run ended (exit {proc.returncode}) before it could be killed midway:\n{err[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"nothing was recorded within {limit:g} s")
        time.sleep(0.05)
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"{sig.name} did not stop the run within 60 s")
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def finish(command: list[str], limit: float = 300.0) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=limit, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def check_stopped(result: subprocess.CompletedProcess, sig: signal.Signals, tool_name: str) -> None:
    """SIGKILL: the process just dies. SIGTERM: a clean stop, one line, no traceback."""
    if sig == signal.SIGKILL:
        assert result.returncode == -signal.SIGKILL
        return
    assert result.returncode == 128 + signal.SIGTERM, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        f"{tool_name}: terminated (SIGTERM); finished work is kept, rerun the same command to resume"
    )


# --------------------------------------------------------------------------- tuning


def complete_records(path: Path) -> list[dict]:
    """Every line but a torn last one must be a whole record."""
    lines = path.read_text().splitlines() if path.exists() else []
    out = []
    for n, line in enumerate(lines, 1):
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            assert n == len(lines), f"line {n} of {len(lines)} is corrupt: {line[:80]!r}"
    return out


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_tuning_killed_midway_resumes_without_losing_or_repeating(tmp_path: Path, sig: signal.Signals) -> None:
    model = tmp_path / "matmul.mlir"
    model.write_text(MATMUL)
    records = tmp_path / "tune.jsonl"
    command = tool("tune", str(model), "--trials", "12", "--batch", "4", "--workers", "1", "--threads", "1",
                   "--search", "random", "--timeout", "60", "--records", str(records))  # fmt: skip
    stopped = kill_when(command, lambda: len(complete_records(records)) >= 4, sig)
    check_stopped(stopped, sig, "tessel-tune")
    first = complete_records(records)
    assert 4 <= len(first) < 12 and len(first) % 4 == 0, "whole batches only"
    finish(command)
    final = Records(records).entries
    assert len(final) == 12
    ids = [(e["key"], knob_id(e["knobs"])) for e in final]
    assert len(set(ids)) == len(ids), "a candidate was measured twice"
    assert ids[: len(first)] == [(e["key"], knob_id(e["knobs"])) for e in first], "a record was lost or rewritten"


# --------------------------------------------------------------------------- HE synthesis


def cache_entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.mlir")) if folder.exists() else []


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_he_synthesis_killed_midway_resumes_from_its_cache(tmp_path: Path, sig: signal.Signals) -> None:
    source = tmp_path / "specs.mlir"
    source.write_text(SPECS)
    cache = tmp_path / "cache"
    out = tmp_path / "out.mlir"
    command = tool("opt", str(source), "-p", f'he-synthesize{{cache="{cache}" budget=120}}', "-o", str(out))
    folder = cache / "he-synthesize"
    stopped = kill_when(command, lambda: len(cache_entries(folder)) >= 1, sig)
    check_stopped(stopped, sig, "tessel-opt")
    assert not out.exists(), "a partial -o file was left behind"
    (entry,) = cache_entries(folder)
    kept = entry.read_text()
    assert "@dot_synth" in kept and "@l2" not in kept
    verify(parse_module(make_context(), kept))  # whole and valid
    assert not list(folder.glob("*.tmp.*")), "a temporary file was left in the cache"
    rerun = finish(command)
    assert "@dot: from the cache" in rerun.stderr, rerun.stderr
    assert "@l2: 4 operations" in rerun.stderr or "@l2: " in rerun.stderr
    assert entry.read_text() == kept
    assert len(cache_entries(folder)) == 2
    text = out.read_text()
    assert "@dot_synth" in text and "@l2_synth" in text


def test_a_corrupt_cache_entry_is_recomputed_not_trusted(tmp_path: Path) -> None:
    source = tmp_path / "dot.mlir"
    source.write_text(SPECS.split("func.func @l2")[0])
    cache = tmp_path / "cache"
    command = tool("opt", str(source), "-p", f'he-synthesize{{cache="{cache}"}}')
    finish(command)
    (entry,) = cache_entries(cache / "he-synthesize")
    entry.write_text(entry.read_text().replace("hev.rotate", "hev.frobnicate", 1))
    again = finish(command)
    assert "from the cache" not in again.stderr and "verified exactly" in again.stderr
    assert "@dot_synth" in again.stdout
    verify(parse_module(make_context(), entry.read_text()))  # replaced by a whole, valid entry


# --------------------------------------------------------------------------- collective synthesis


def test_coll_synthesis_killed_midway_resumes_from_its_cache(tmp_path: Path) -> None:
    topology = print_module(ModuleOp([topology_op(builtin("ndv2x2"))])).strip()
    body = topology.removeprefix("builtin.module {").removesuffix("}")
    collectives = "".join(
        f"  coll.collective @{kind}_{size} {kind} ranks 16 chunkup 1 size {size} on @ndv2x2\n"
        for kind in ("allgather", "reduce_scatter", "allreduce") for size in (1024, 1048576)
    )  # fmt: skip
    source = tmp_path / "problem.mlir"
    source.write_text(f"builtin.module {{{body}{collectives}}}\n")
    cache = tmp_path / "cache"
    out = tmp_path / "out.mlir"
    command = tool(
        "opt", str(source), "-p", f'coll-synthesize{{time-limit=10 cache="{cache}"}},coll-verify', "-o", str(out)
    )
    folder = cache / "coll-synthesize"
    stopped = kill_when(command, lambda: len(cache_entries(folder)) >= 1, signal.SIGKILL)
    check_stopped(stopped, signal.SIGKILL, "tessel-opt")
    assert not out.exists()
    kept = {p.name: p.read_text() for p in cache_entries(folder)}
    assert 1 <= len(kept) < 6, "killed midway"
    for text in kept.values():
        (alg,) = list(parse_module(make_context(), text).ops)
        assert isinstance(alg, AlgorithmOp)
    start = time.monotonic()
    finish(command)
    assert {p.name: p.read_text() for p in cache_entries(folder) if p.name in kept} == kept, "an entry was redone"
    assert len(cache_entries(folder)) == 6
    result = parse_module(make_context(), out.read_text())
    algorithms = {op.sym_name.data: print_module(op) for op in result.walk() if isinstance(op, AlgorithmOp)}
    assert len(algorithms) == 6
    for text in kept.values():
        (alg,) = list(parse_module(make_context(), text).ops)
        assert algorithms[alg.sym_name.data] == print_module(alg), "the rerun did not use the cached algorithm"
    assert time.monotonic() - start < 300
