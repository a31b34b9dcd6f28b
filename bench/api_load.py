"""Deployment latency: how long `tessel.load` of a saved ResNet-18 takes, and its first call.

    python -m tessel.bench.api_load [--processes 5] [--threads 2]

ResNet-18 (examples/models/resnet18.py, random weights) is compiled and saved once; then
each of `--processes` fresh interpreters imports tessel, loads the folder (numpy + ctypes
only: the child checks that neither xdsl nor llvmlite was imported), calls it once, then 20
more times. Medians over the processes; the first call includes making the arena and
starting the executor's threads.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import tessel
t1 = time.perf_counter()
model = tessel.load(sys.argv[1])
t2 = time.perf_counter()
x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
model(input=x)
t3 = time.perf_counter()
times = []
for _ in range(20):
    s = time.perf_counter(); model(input=x); times.append(time.perf_counter() - s)
assert "xdsl" not in sys.modules and "llvmlite" not in sys.modules
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "load_ms": (t2 - t1) * 1e3, "first_call_ms": (t3 - t2) * 1e3,
                  "median_ms": sorted(times)[10] * 1e3}))
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--processes", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    import tessel

    sys.path.insert(0, str(ROOT / "examples" / "models"))
    build = __import__("resnet18").build  # examples/models/resnet18.py

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        model = tessel.compile(build(), threads=args.threads)
        compiled = time.perf_counter()
        folder = model.save(Path(tmp) / "resnet18.tessel")
        saved = time.perf_counter()
        size = sum(f.stat().st_size for f in folder.iterdir()) / 2**20
        print(f"compile {compiled - start:.2f} s, save {saved - compiled:.2f} s, folder {size:.1f} MiB")
        runs = []
        for i in range(args.processes):
            out = subprocess.run([sys.executable, "-c", CHILD, str(folder)], capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout))
            print(f"process {i}: " + "  ".join(f"{k} {v:.1f}" for k, v in runs[-1].items()))
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(
        f"RESULT api_load model=resnet18 threads={args.threads} processes={args.processes} "
        + " ".join(f"{k}={v:.1f}" for k, v in med.items())
    )


if __name__ == "__main__":
    main()
