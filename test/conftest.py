"""What every test session shares.

In CI (CI=true), a pytest session that collected tests but passed none fails: a skip hook
or a marker gone wrong must not turn a suite into a green row of `s` (it happened once:
test/gpu's hook skipped the fuzz and bad-input suites running in its session)."""

from __future__ import annotations

import os

import pytest

# The tests verify the IR after every pass of the tensor pipeline (a tool verifies only its
# result unless asked: pipelines/tensor.py), so that a pass that breaks the IR is named.
os.environ.setdefault("TESSEL_VERIFY_EACH", "1")
# The model cache returns a compiled model without running the compiler; tests monkeypatch
# the compiler (a CPU's features, a schedule's constant) in ways its key cannot see, so it is
# off here and test/unit/api/test_model_cache.py turns it on in a cache of its own.
os.environ.setdefault("TESSEL_MODEL_CACHE", "0")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("CI") != "true" or exitstatus != 0 or not session.testscollected:
        return
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker sees its share of the tests; the controller judges the whole
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    passed = len(reporter.stats.get("passed", [])) if reporter is not None else 1
    if passed == 0:
        print(
            f"\nerror: {session.testscollected} tests collected and none passed (all skipped or deselected): "
            "in CI that is a failure, not a pass"
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
