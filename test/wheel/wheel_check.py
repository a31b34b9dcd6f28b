"""The wheel works from outside the checkout: `make wheel-test`.

    python test/wheel/wheel_check.py [--keep DIR] [--deps index|venv]

1. `python -m build --wheel` makes the wheel (without build isolation: the running
   interpreter's setuptools, so no network is needed for the build itself);
2. a fresh virtual environment in a temporary folder outside the checkout gets the wheel,
   its dependencies from the package index (`--deps index`, what CI does) or, for a quick
   offline run, linked from the running interpreter's site-packages (`--deps venv`: the
   dependencies only; the checkout's own editable install is not visible there);
3. from a working folder outside the checkout, the installed copy must be the one imported
   (`tessel.__file__` inside the new environment), `python -m tessel` must run, and the
   README's Python examples (every block marked `<!-- tessel:run -->`, as the docs test runs
   them) must pass, as must `tessel-run ... --partition` with its default platform model
   (package data) and a saved model loaded in a process without xDSL or llvmlite.

Prints the time of each step and exits non-zero on the first failure.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- tessel:run -->"
BLOCK = re.compile(re.escape(MARKER) + r"\s*\n```python\n(.*?)\n```", re.S)

LOAD_ALONE = """
import sys, numpy as np, tessel
model = tessel.load("saved.tessel")
y = model(np.ones((1, 64), np.float32))["y"]
assert y.shape == (1, 10), y.shape
loaded = [m for m in ("xdsl", "llvmlite", "onnx") if m in sys.modules]
assert not loaded, f"tessel.load imported {loaded}"
print("loaded without the compiler:", tessel.__file__)
"""

SAVE = """
import numpy as np, tessel
tessel.compile("mlp.onnx", threads=1).save("saved.tessel")
"""


def step(name: str, command: list[str], cwd: Path, timeout: float = 900) -> str:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    took = time.perf_counter() - start
    if result.returncode != 0:
        print(f"FAILED {name} ({took:.1f} s): {' '.join(command)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        raise SystemExit(1)
    print(f"ok     {name} ({took:.1f} s)", flush=True)
    return result.stdout


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temporary folder, removed)")
    p.add_argument("--deps", choices=["index", "venv"], default="index", help="where the dependencies come from")
    args = p.parse_args()
    start = time.perf_counter()
    base = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="tessel-wheel-"))
    if ROOT in base.parents or base == ROOT:
        raise SystemExit(f"{base} is inside the checkout; the point is to test from outside it")
    base.mkdir(parents=True, exist_ok=True)
    try:
        dist, env, work = base / "dist", base / "venv", base / "work"
        for d in (dist, env, work):
            shutil.rmtree(d, ignore_errors=True)
        work.mkdir()
        step("build the wheel", [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(ROOT)], ROOT)  # fmt: skip
        (wheel,) = dist.glob("tessel-*.whl")
        step("a fresh venv", [sys.executable, "-m", "venv", str(env)], base)
        python = env / "bin" / "python"
        if args.deps == "venv":
            site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
            # the dependencies only: a plain path entry (its .pth files, the editable install among them, are not run)
            Path(site, "deps-from-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
            step("install the wheel (dependencies linked)", [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], base)  # fmt: skip
        else:
            step("install the wheel and its dependencies", [str(python), "-m", "pip", "install", "-q", str(wheel)], base, 1800)  # fmt: skip
        where = step(
            "the installed copy is imported", [str(python), "-c", "import tessel; print(tessel.__file__)"], work
        )
        if not where.strip().startswith(str(env)):
            print(f"FAILED: tessel was imported from {where.strip()}, not from {env}")
            return 1
        print(step("python -m tessel", [str(python), "-m", "tessel"], work).rstrip())
        step("the example model", [str(python), str(ROOT / "examples" / "api" / "mlp.py"), "-o", "mlp.onnx"], work)
        text = (ROOT / "README.md").read_text()
        for m in BLOCK.finditer(text):
            line = text.count("\n", 0, m.start(1)) + 1
            step(f"README.md:{line} example", [str(python), "-c", m.group(1)], work)
            for made in work.iterdir():  # each example starts from the model alone
                if made.name != "mlp.onnx":
                    shutil.rmtree(made) if made.is_dir() else made.unlink()
        step("save a compiled model", [str(python), "-c", SAVE], work)
        print(step("load it without the compiler", [str(python), "-c", LOAD_ALONE], work).rstrip())
        shutil.copy(ROOT / "examples" / "img" / "camera" / "face_auth.mlir", work)
        out = step("img-partition's default platform model", [str(env / "bin" / "tessel-run"), "face_auth.mlir", "--target", "cpu", "--partition"], work)  # fmt: skip
        if "<- chosen" not in out:
            print(f"FAILED: no cut chosen:\n{out[-2000:]}")
            return 1
        print(f"RESULT wheel_test seconds={time.perf_counter() - start:.0f} deps={args.deps} wheel={wheel.name}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
