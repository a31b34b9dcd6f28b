"""Writes docs/onnx-coverage.md after a full run of the ONNX node tests (onnx/).

These hooks live here, not in onnx/conftest.py: under pytest-xdist the controller process
collects nothing, so it loads only the conftest files on the way to the paths it was given
(`make conformance-full` gives test/conformance), and only the controller sees every report.
Outcomes travel on the reports (`user_properties`, set by onnx/conftest.py's `record`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "onnx"))

import node_suite  # noqa: E402

RESULTS: dict[tuple[str, str], tuple[node_suite.Outcome, str, set[str]]] = {}
COVERAGE = node_suite.ROOT / "docs" / "onnx-coverage.md"
PROPERTY = node_suite.OUTCOME_PROPERTY


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":
        return
    for key, value in report.user_properties:
        if key == PROPERTY:
            name, target, outcome, detail, ops = value
            RESULTS[(name, target)] = (node_suite.Outcome(outcome), detail, set(ops))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Only a run of the whole suite may rewrite the table (not `-k`, not a single test), and
    # only the process that saw every report (not an xdist worker).
    if hasattr(session.config, "workerinput"):
        return
    expected = len(node_suite.load_cases()) * len(node_suite.TARGETS)
    if node_suite.FULL and RESULTS and len(RESULTS) == expected:
        COVERAGE.parent.mkdir(exist_ok=True)
        COVERAGE.write_text(node_suite.coverage_markdown(RESULTS, "make conformance-full"))
    elif node_suite.FULL and RESULTS:
        print(f"\ndocs/onnx-coverage.md not rewritten: {len(RESULTS)} of {expected} node-test outcomes were run")
