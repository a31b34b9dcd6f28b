"""Measure the cost table: every BFV operation's latency and noise on SEAL, per parameter set.

    python -m tessel.targets.seal.profile -o targets/seal/costs.json [--reps 21] [--params n8192-q60x2,...]

Each latency is the median of `reps` runs on full random vectors (single thread, like the
kernels). Noise figures are the invariant noise budget of a fresh encryption and what each
operation consumes of it (fresh minus after, in bits; multiplication measured on fresh
operands, relinearization on the product). The table records the machine and this command.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from tessel.targets.seal.costs import LATENCY_OPS, PROFILE_COMMAND
from tessel.targets.seal.params import CANDIDATES, ParamSet, by_name
from tessel.targets.seal.runtime import SealRuntime
from tessel.tools.cli import guarded

PLAIN_MODULUS = 65537


def _medians_us(ops: dict[str, Callable[[], object]], reps: int) -> dict[str, float]:
    """Median time of each operation, measured in interleaved rounds (one run of every
    operation per round), so a burst of load on a shared machine hits all of them alike."""
    for fn in ops.values():
        fn()  # warm up (allocations, NTT tables)
    times: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(reps):
        for name, fn in ops.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: round(statistics.median(t) * 1e6, 2) for name, t in times.items()}


def profile(params: ParamSet, reps: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    n = params.slots
    rt = SealRuntime(params, PLAIN_MODULUS, n, rotations=[1], relinearize=True)
    x, y = (rng.integers(0, PLAIN_MODULUS, n) for _ in range(2))
    cx, cy, p = rt.encrypt(x), rt.encrypt(y), rt.encode(rng.integers(0, PLAIN_MODULUS, n))
    product = rt.multiply(cx, cy)
    levels = len(params.resolved_bits()) - 1
    ops: dict[str, Callable[[], object]] = {
        "add": lambda: rt.add(cx, cy),
        "sub": lambda: rt.sub(cx, cy),
        "negate": lambda: rt.negate(cx),
        "multiply": lambda: rt.multiply(cx, cy),
        "square": lambda: rt.multiply(cx, cx),
        "relinearize": lambda: rt.relinearize(product),
        "rotate": lambda: rt.rotate(cx, 1),
        "multiply_plain": lambda: rt.multiply_plain(cx, p),
        "add_plain": lambda: rt.add_plain(cx, p),
        "sub_plain": lambda: rt.sub_plain(cx, p),
        "encrypt": lambda: rt.encrypt(x),
        "encode": lambda: rt.encode(x),
        "decrypt": lambda: rt.decrypt(cx),
    }
    if levels > 1:
        ops["mod_switch"] = lambda: rt.mod_switch(cx)
    lat = _medians_us(ops, reps)
    lat.setdefault("mod_switch", 0.0)
    assert set(lat) == set(LATENCY_OPS)
    fresh = rt.noise_budget(cx)
    relin = rt.relinearize(product)
    noise = {
        "fresh": fresh,
        "add": fresh - rt.noise_budget(rt.add(cx, cy)),
        "sub": fresh - rt.noise_budget(rt.sub(cx, cy)),
        "negate": fresh - rt.noise_budget(rt.negate(cx)),
        "multiply": fresh - rt.noise_budget(product),
        "relinearize": rt.noise_budget(product) - rt.noise_budget(relin),
        "rotate": fresh - rt.noise_budget(rt.rotate(cx, 1)),
        "multiply_plain": fresh - rt.noise_budget(rt.multiply_plain(cx, p)),
        "add_plain": fresh - rt.noise_budget(rt.add_plain(cx, p)),
        "sub_plain": fresh - rt.noise_budget(rt.sub_plain(cx, p)),
        "mod_switch": fresh - rt.noise_budget(rt.mod_switch(cx)) if levels > 1 else float(fresh),
    }
    # a budget of 0 means the noise figure is a lower bound: record whether it still decrypts
    multiply_decrypts = bool(np.array_equal(rt.decrypt(relin), (x * y) % PLAIN_MODULUS))
    return {
        "multiply_decrypts": multiply_decrypts,
        "poly_modulus_degree": params.poly_modulus_degree,
        "coeff_modulus_bits": list(params.resolved_bits()),
        "latency_us": lat,
        "noise_bits": noise,
    }


def _machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    import tenseal

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "tenseal": getattr(tenseal, "__version__", "?"),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", "unset"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tessel.targets.seal.profile", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", required=True, help="where to write the JSON table")
    ap.add_argument("--reps", type=int, default=21, help="runs per latency (median; default 21)")
    ap.add_argument("--params", help="comma-separated parameter sets (default: all candidates)")
    ap.add_argument("--debug", action="store_true")
    args = ap.parse_args(argv)

    def body() -> int:
        chosen = [by_name(n) for n in args.params.split(",")] if args.params else list(CANDIDATES)
        table = {
            "generated_by": PROFILE_COMMAND if not args.params else f"python -m tessel.targets.seal.profile -o {args.output} --params {args.params}",
            "date": datetime.date.today().isoformat(),
            "machine": _machine(),
            "reps": args.reps,
            "plain_modulus": PLAIN_MODULUS,
            "params": {},
        }
        for p in chosen:
            start = time.perf_counter()
            table["params"][p.name] = profile(p, args.reps)
            e = table["params"][p.name]
            print(f"{p.name:14} {p.describe():40} rotate {e['latency_us']['rotate']:8.1f} us  multiply {e['latency_us']['multiply']:8.1f} us  "
                  f"fresh {e['noise_bits']['fresh']} bits, multiply -{e['noise_bits']['multiply']}  ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr)
        with open(args.output, "w") as f:
            json.dump(table, f, indent=1)
            f.write("\n")
        return 0

    return guarded("profile", body, args.debug)


if __name__ == "__main__":
    sys.exit(main())
