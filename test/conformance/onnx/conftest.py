"""The `record` fixture: each node test's outcome rides on its report (`user_properties`:
plain types, which xdist carries between processes), for ../conftest.py to tabulate."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import node_suite  # noqa: E402


@pytest.fixture
def record(request: pytest.FixtureRequest):
    def _record(
        case: node_suite.NodeTest, target: str, outcome: node_suite.Outcome, detail: str, ops: set[str]
    ) -> None:
        request.node.user_properties.append(
            (node_suite.OUTCOME_PROPERTY, [case.name, target, outcome.value, detail, sorted(ops)])
        )

    return _record
