"""No memory growth over many calls: RSS while a compiled model runs 100,000 times.

    python -m tessel.bench.api_memory [--calls 100000] [--threads 1] [--python-threads 1]

The model is the README's MLP (examples/api/mlp.py), compiled, saved and loaded back
(the deployable runtime is what a server keeps calling). RSS is read from /proc/self/statm
after a warm-up of 1,000 calls and then every tenth of the run; the RESULT line gives the
growth from the first sample to the last.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

import tessel

ROOT = Path(__file__).resolve().parents[1]


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--calls", type=int, default=100_000)
    p.add_argument("--threads", type=int, default=1, help="threads per call (default: 1)")
    p.add_argument("--python-threads", type=int, default=1, help="Python threads calling at once (default: 1)")
    args = p.parse_args()
    sys.path.insert(0, str(ROOT / "examples" / "api"))
    build = __import__("mlp").build  # examples/api/mlp.py

    with tempfile.TemporaryDirectory() as tmp:
        tessel.compile(build(), threads=args.threads).save(Path(tmp) / "mlp.tessel")
        model = tessel.load(Path(tmp) / "mlp.tessel")
    x = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
    expected = model(x)["y"]
    for _ in range(1000):
        model(x)
    samples = [(0, rss_mib())]
    step = max(1, args.calls // 10)
    start = time.perf_counter()
    done = 0
    with ThreadPoolExecutor(args.python_threads) as pool:
        while done < args.calls:
            n = min(step, args.calls - done)
            parts = [n // args.python_threads + (i < n % args.python_threads) for i in range(args.python_threads)]
            results = list(pool.map(lambda k: [model(x)["y"] for _ in range(k)][-1:], parts))
            assert all(np.array_equal(r[0], expected) for r in results if r)
            done += n
            samples.append((done, rss_mib()))
    seconds = time.perf_counter() - start
    print(f"{'calls':>8}  {'RSS MiB':>8}")
    for calls, rss in samples:
        print(f"{calls:8d}  {rss:8.2f}")
    growth = samples[-1][1] - samples[0][1]
    steady = samples[-1][1] - samples[1][1]  # after the first tenth (the allocator's pools fill)
    peak = max(r for _, r in samples) - samples[0][1]
    print(
        f"RESULT api_memory calls={args.calls} python_threads={args.python_threads} threads={args.threads} "
        f"rss_start_mib={samples[0][1]:.2f} rss_end_mib={samples[-1][1]:.2f} growth_mib={growth:.2f} "
        f"growth_after_first_tenth_mib={steady:.2f} "
        f"peak_growth_mib={peak:.2f} us_per_call={seconds / args.calls * 1e6:.1f}"
    )


if __name__ == "__main__":
    main()
