"""Collects each node test's outcome and, after a full run, writes docs/onnx-coverage.md."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import node_suite  # noqa: E402

RESULTS: dict[tuple[str, str], tuple[node_suite.Outcome, str, set[str]]] = {}
COVERAGE = node_suite.ROOT / "docs" / "onnx-coverage.md"


@pytest.fixture
def record():
    def _record(
        case: node_suite.NodeTest, target: str, outcome: node_suite.Outcome, detail: str, ops: set[str]
    ) -> None:
        RESULTS[(case.name, target)] = (outcome, detail, ops)

    return _record


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Only a run of the whole suite may rewrite the table (not `-k`, not a single test).
    if node_suite.FULL and RESULTS and len(RESULTS) == len(node_suite.load_cases()) * len(node_suite.TARGETS):
        COVERAGE.parent.mkdir(exist_ok=True)
        COVERAGE.write_text(node_suite.coverage_markdown(RESULTS, "make test"))
