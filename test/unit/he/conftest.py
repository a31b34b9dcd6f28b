"""Shared helpers for the HE tests: the example kernels and a fixed cost table."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "he"
COSTS = ROOT / "test" / "lit" / "passes" / "he" / "Inputs" / "costs.json"


def load_kernels():
    spec = importlib.util.spec_from_file_location("he_example_kernels", EXAMPLES / "kernels.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("he_example_kernels", module)
    spec.loader.exec_module(module)
    return module.KERNELS


@pytest.fixture(scope="session")
def kernels():
    return load_kernels()


@pytest.fixture(scope="session")
def cost_table():
    from tessel.dialects.hev import costs

    return costs.load(str(COSTS))
