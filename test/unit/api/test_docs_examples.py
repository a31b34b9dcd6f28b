"""The Python examples of the README and docs/ run as they are written: every ```python block
that follows a line `<!-- tessel:run -->` runs in a fresh interpreter, in an empty folder that
holds `mlp.onnx` (examples/api/mlp.py), so the documentation cannot drift from the API."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
MARKER = "<!-- tessel:run -->"
BLOCK = re.compile(re.escape(MARKER) + r"\s*\n```python\n(.*?)\n```", re.S)


def documented_examples() -> list[tuple[str, str]]:
    """(file:line, code) of every marked block."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text()
        for m in BLOCK.finditer(text):
            line = text.count("\n", 0, m.start(1)) + 1
            found.append((f"{path.relative_to(ROOT)}:{line}", m.group(1)))
    return found


def test_the_readme_opens_with_the_api_example() -> None:
    """The first code block of the README is the five-line example, and it is run."""
    text = (ROOT / "README.md").read_text()
    first = text.index("```")
    assert text[:first].rstrip().endswith(MARKER) and text[first:].startswith("```python\n")
    code = BLOCK.search(text)
    assert code is not None and len(code.group(1).strip().splitlines()) == 5
    for call in ("tessel.compile(", ".save(", "tessel.load("):
        assert call in code.group(1)


def test_every_marked_block_is_found() -> None:
    """A marker not followed by a python block is a typo that would skip an example."""
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text()
        assert text.count(MARKER) == len(BLOCK.findall(text)), f"{path.name}: a {MARKER} without a python block"


@pytest.fixture(scope="module")
def mlp_onnx(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "mlp.onnx"
    subprocess.run([sys.executable, str(ROOT / "examples" / "api" / "mlp.py"), "-o", str(path)], check=True)
    return path


@pytest.mark.parametrize("where, code", documented_examples(), ids=[w for w, _ in documented_examples()])
def test_documented_example_runs(where: str, code: str, mlp_onnx: Path, tmp_path: Path) -> None:
    (tmp_path / "mlp.onnx").write_bytes(mlp_onnx.read_bytes())
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{where}: the example failed:\n{result.stderr[-3000:]}"
