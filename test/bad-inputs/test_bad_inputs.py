"""Every bad input in the corpus gets a clear error from its tool: a non-zero exit, one
`error:` line naming what is wrong, no Python traceback, no hang, and no partial output.

One parametrized case per corpus file (corpus.py says how a case is written). The tools run
as separate processes (`python -m tessel.tools.NAME`), exactly as a user runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import Case, cases, parse  # noqa: I001  (test/bad-inputs is on sys.path: conftest.py)
from make_bad_onnx import write_model

MODULES = {
    "tessel-opt": "tessel.tools.opt",
    "tessel-translate": "tessel.tools.translate",
    "tessel-run": "tessel.tools.run",
    "tessel-tune": "tessel.tools.tune",
}


def prepare(case: Case, scratch: Path) -> None:
    for name, text in case.files.items():
        (scratch / name).parent.mkdir(parents=True, exist_ok=True)
        (scratch / name).write_text(text)
    for kind, name in case.makes:
        write_model(kind, scratch / name)


def run_case(case: Case, scratch: Path) -> subprocess.CompletedProcess:
    prepare(case, scratch)
    env = dict(os.environ, PYTHONFAULTHANDLER="", COLUMNS="200")
    command = [sys.executable, "-m", MODULES[case.tool], *case.argv(scratch)]
    try:
        return subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True,
                              timeout=case.timeout, stdin=subprocess.DEVNULL)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case.name}: hung (no exit within {case.timeout:g} s): {case.command}")


def check(case: Case, result: subprocess.CompletedProcess, scratch: Path) -> None:
    """The rules a failed run must keep; each failure message names the broken rule."""
    output = result.stdout + result.stderr
    where = f"{case.name} ({case.command})\n--- stderr:\n{result.stderr[-3000:]}"
    assert "Traceback" not in output, f"a Python traceback: {where}"
    assert "internal error" not in output, f"an internal error instead of a user error: {where}"
    assert result.returncode == case.exit, f"exit {result.returncode}, expected {case.exit}: {where}"
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, f"{len(errors)} error lines, expected exactly one: {where}"
    assert case.error in errors[0], f"the error line does not say {case.error!r}: {where}"
    leftovers = sorted(p.name for p in scratch.iterdir() if p.name == "out" or p.name.startswith("out."))
    assert not leftovers, f"partial output left behind after the failure: {leftovers}: {where}"


@pytest.mark.parametrize("path", cases(), ids=lambda p: str(p.relative_to(Path(__file__).parent)))
def test_bad_input(path: Path, tmp_path: Path) -> None:
    case = parse(path)
    check(case, run_case(case, tmp_path), tmp_path)


def test_the_walker_can_fail(tmp_path: Path) -> None:
    """The checks reject a traceback, a second error line, and a leftover output file."""
    case = Case(Path(__file__), command="tessel-opt x", error="boom")
    bad = [
        subprocess.CompletedProcess([], 1, "", "Traceback (most recent call last):\nerror: boom\n"),
        subprocess.CompletedProcess([], 1, "", "a: error: boom\nb: error: boom\n"),
        subprocess.CompletedProcess([], 0, "", "a: error: boom\n"),
        subprocess.CompletedProcess([], 1, "", "a: error: something else\n"),
    ]
    for result in bad:
        with pytest.raises(AssertionError):
            check(case, result, tmp_path)
    (tmp_path / "out").write_text("partial")
    with pytest.raises(AssertionError, match="partial output"):
        check(case, subprocess.CompletedProcess([], 1, "", "a: error: boom\n"), tmp_path)


def test_the_corpus_covers_every_entry_point() -> None:
    by_tool: dict[str, int] = {}
    for path in cases():
        tool = parse(path).tool
        by_tool[tool] = by_tool.get(tool, 0) + 1
    assert set(by_tool) == set(MODULES), by_tool
    assert sum(by_tool.values()) >= 100, by_tool
