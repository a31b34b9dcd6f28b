"""Tests that need an NVIDIA GPU: skipped, with the reason, where none is usable (no
cuda-python, no driver, no device). bench/gpu_check.sh runs them on a GPU machine."""

from __future__ import annotations

from pathlib import Path

import pytest


def _usable() -> str | None:
    try:
        from tessel.targets.gpu.runtime import open_device

        open_device()
    except Exception as err:  # noqa: BLE001 - any reason is a reason to skip
        return str(err).removeprefix("error: ")
    return None


REASON = _usable()


HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip this folder's tests (the hook sees every collected test of the session: the
    fuzz and bad-input suites run in the same one)."""
    if REASON is None:
        return
    skip = pytest.mark.skip(reason=f"no usable GPU: {REASON}")
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)
