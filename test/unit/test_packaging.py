"""The wheel ships exactly the packages on disk: every folder holding __init__.py is listed
in pyproject's `packages` (an editable install would hide a forgotten one)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".venv", ".git", ".cache", "build", "test", "examples", "docs"}


def _package_dirs() -> set[str]:
    found = set()
    for init in ROOT.rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT)
        if rel.parts and (rel.parts[0] in SKIP or rel.parts[0].startswith(".") or rel.parts[0].endswith(".egg-info")):
            continue
        found.add(".".join(("tessel", *rel.parts)))
    return found


def test_every_package_is_listed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    assert _package_dirs() == listed


def test_tests_are_not_a_package():
    assert not (ROOT / "test" / "__init__.py").exists()
    assert not (ROOT / "conftest.py").exists()
