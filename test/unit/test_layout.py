"""The house rules that a reader relies on (docs/architecture.md), checked on the tree.

Every registered pass is one file named after it, with its lit test in the mirrored
layout; every dialect has its lit folder; nothing but passes sits directly in a pass
folder. The layer line and acyclicity are checked by import-linter (`make check`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tessel.dialects import all_dialects
from tessel.passes import all_passes, pass_modules

ROOT = Path(__file__).resolve().parents[2]
LIT = ROOT / "test" / "lit"


@pytest.mark.parametrize("name", sorted(pass_modules()))
def test_every_pass_file_holds_the_pass_named_after_it(name: str) -> None:
    cls = all_passes()[name]()
    assert cls.name == name
    assert cls.__module__ == pass_modules()[name]


@pytest.mark.parametrize("name", sorted(pass_modules()))
def test_every_pass_has_its_lit_test(name: str) -> None:
    family, _, rest = name.partition("-")
    folder = LIT / "passes" / family
    tests = [p for p in folder.glob(f"{rest}*") if p.suffix in (".mlir", ".test")] if folder.is_dir() else []
    assert tests, f"no lit test test/lit/passes/{family}/{rest}.mlir (or {rest}-*.mlir / .test) for {name}"


@pytest.mark.parametrize("name", sorted(all_dialects()))
def test_every_dialect_has_its_lit_folder(name: str) -> None:
    folder = LIT / "dialects" / name
    assert folder.is_dir() and any(folder.glob("*.mlir")), f"no lit tests in test/lit/dialects/{name}/"


def test_dialects_load() -> None:
    for name, factory in all_dialects().items():
        assert factory().name == name


def test_every_package_is_installed() -> None:
    """pyproject lists packages by hand (the tree is the package root): a folder left out
    is missing from the installed wheel, one that no longer exists breaks `pip install`."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    skip = {"test", "build", "examples", "docs", "__pycache__"}
    tree = {
        ".".join(("tessel", *init.parent.relative_to(ROOT).parts))
        for init in ROOT.rglob("__init__.py")
        if not any(part.startswith(".") or part in skip for part in init.relative_to(ROOT).parts)
    }
    assert tree - listed == set(), "packages missing from pyproject.toml"
    assert listed - tree == set(), "pyproject.toml lists packages that do not exist"
