"""Every ONNX backend node test the importer accepts must pass on the reference target, the
kernel IR and compiled for the CPU and GPU (in `make test` the compiled targets run on a
cover of the suite's operators and types: node_suite.sampled); every test made only of the
15 CNN-core operators must be accepted."""

from __future__ import annotations

import pytest
from node_suite import CNN_CORE, TARGETS, Outcome, load_cases, op_types, run_case, sampled

CASES = load_cases()
RUNS = [
    pytest.param(case, target, id=f"{case.name}-{target}")
    for target in sorted(TARGETS)
    for case in sampled(CASES, target)
]


@pytest.mark.parametrize(("case", "target"), RUNS)
def test_node(case, target, record):
    ops = op_types(case.model())
    outcome, detail = run_case(case, TARGETS[target])
    record(case, target, outcome, detail, ops)
    if outcome is Outcome.FAILED:
        pytest.fail(detail)
    if outcome is Outcome.UNSUPPORTED:
        if ops <= CNN_CORE:
            pytest.fail(f"a CNN-core node test must be supported: {detail}")
        pytest.skip(f"unsupported: {detail}")


def test_cnn_core_suite_is_large():
    """The core set is what the README promises; losing tests from it must be noticed."""
    core = [c for c in CASES if op_types(c.model()) <= CNN_CORE]
    assert len(core) >= 130, len(core)
