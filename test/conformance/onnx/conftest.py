"""Collects each node test's outcome and, after a full run, writes docs/onnx-coverage.md.

Outcomes travel on the test reports (`user_properties`), so the table is whole when
pytest-xdist runs the tests in worker processes: the controller sees every report."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import node_suite  # noqa: E402

RESULTS: dict[tuple[str, str], tuple[node_suite.Outcome, str, set[str]]] = {}
COVERAGE = node_suite.ROOT / "docs" / "onnx-coverage.md"
PROPERTY = "onnx-node-outcome"


@pytest.fixture
def record(request: pytest.FixtureRequest):
    def _record(
        case: node_suite.NodeTest, target: str, outcome: node_suite.Outcome, detail: str, ops: set[str]
    ) -> None:
        # plain types only: xdist carries reports between processes with execnet
        request.node.user_properties.append((PROPERTY, [case.name, target, outcome.value, detail, sorted(ops)]))

    return _record


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
    if node_suite.FULL and RESULTS and len(RESULTS) == len(node_suite.load_cases()) * len(node_suite.TARGETS):
        COVERAGE.parent.mkdir(exist_ok=True)
        COVERAGE.write_text(node_suite.coverage_markdown(RESULTS, "make test"))
