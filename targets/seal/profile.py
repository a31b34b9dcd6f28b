"""Measure the cost table: every BFV operation's latency and noise on SEAL, per parameter set.

    python -m tessel.targets.seal.profile -o dialects/hev/costs.json [--reps 21] [--params n8192-q60x2,...]

Each latency is the median of `reps` runs on full random vectors (single thread, like the
kernels). Noise figures are the invariant noise budget of a fresh encryption and what each
operation consumes of it (fresh minus after, in bits; multiplication measured on fresh
operands, relinearization on the product). The table records the machine and this command.
Its format (`tessel.dialects.hev.costs`) is the dialect's: the passes read the table and
never run SEAL themselves.

For a set with several data primes the same is measured at every lower level of its chain
(`levels`, operands switched down k times, in the same interleaved rounds as level 0 so
that load hits all levels alike), with the budget a fresh ciphertext keeps there (`fresh`)
and the budget a size-3 product switched down from the level above keeps (`fresh3`).
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
from typing import Any

import numpy as np

from tessel.dialects.hev.costs import LATENCY_OPS, LEVEL_LATENCY_OPS, PROFILE_COMMAND
from tessel.dialects.hev.params import CANDIDATES, ParamSet, by_name
from tessel.ir.diagnostics import TesselError
from tessel.ir.machine import cpu_model
from tessel.targets.seal.runtime import SealRuntime

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


def _server_ops(
    rt: SealRuntime, cx: object, cy: object, p: object, product: object, last: bool
) -> dict[str, Callable[[], object]]:
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
    }
    if not last:
        ops["mod_switch"] = lambda: rt.mod_switch(cx)
        ops["mod_switch3"] = lambda: rt.mod_switch(product)
    return ops


def _noise(rt: SealRuntime, cx: object, cy: object, p: object, product: object, last: bool) -> dict[str, float]:
    fresh = rt.noise_budget(cx)
    relin = rt.relinearize(product)
    return {
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
        "mod_switch": float(fresh) if last else fresh - rt.noise_budget(rt.mod_switch(cx)),
    }


def profile(params: ParamSet, reps: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    n = params.slots
    rt = SealRuntime(params, PLAIN_MODULUS, n, rotations=[1], relinearize=True)
    x, y = (rng.integers(0, PLAIN_MODULUS, n) for _ in range(2))
    cx, cy, p = rt.encrypt(x), rt.encrypt(y), rt.encode(rng.integers(0, PLAIN_MODULUS, n))
    levels = len(params.resolved_bits()) - 1
    # operands at every level of the chain: level k = switched down k times
    at = [(cx, cy)]
    for _ in range(1, levels):
        a, b = at[-1]
        at.append((rt.mod_switch(a), rt.mod_switch(b)))
    products = [rt.multiply(a, b) for a, b in at]
    ops: dict[str, Callable[[], object]] = {}
    for k, (a, b) in enumerate(at):
        for name, fn in _server_ops(rt, a, b, p, products[k], k == levels - 1).items():
            ops[name if k == 0 else f"L{k}/{name}"] = fn
    ops["encrypt"] = lambda: rt.encrypt(x)
    ops["encode"] = lambda: rt.encode(x)
    ops["decrypt"] = lambda: rt.decrypt(cx)
    measured = _medians_us(ops, reps)
    lat = {name: v for name, v in measured.items() if "/" not in name}
    lat.setdefault("mod_switch", 0.0)
    lat.setdefault("mod_switch3", 0.0)
    assert set(lat) == set(LATENCY_OPS) | {"mod_switch3"}
    noise = _noise(rt, cx, cy, p, products[0], levels == 1)
    relin = rt.relinearize(products[0])
    # a budget of 0 means the noise figure is a lower bound: record whether it still decrypts
    multiply_decrypts = bool(np.array_equal(rt.decrypt(relin), (x * y) % PLAIN_MODULUS))
    entry: dict[str, Any] = {
        "multiply_decrypts": multiply_decrypts,
        "poly_modulus_degree": params.poly_modulus_degree,
        "coeff_modulus_bits": list(params.resolved_bits()),
        "latency_us": lat,
        "noise_bits": noise,
    }
    if levels > 1:
        entry["levels"] = []
        for k in range(1, levels):
            a, b = at[k]
            lv = {name.split("/", 1)[1]: v for name, v in measured.items() if name.startswith(f"L{k}/")}
            lv.setdefault("mod_switch", 0.0)
            lv.setdefault("mod_switch3", 0.0)
            assert set(lv) == set(LEVEL_LATENCY_OPS)
            nz = _noise(rt, a, b, p, products[k], k == levels - 1)
            # a size-3 product of fresh operands one level up, switched down to this level
            nz["fresh3"] = rt.noise_budget(rt.mod_switch(products[k - 1]))
            entry["levels"].append({"latency_us": lv, "noise_bits": nz})
    return entry


def _machine() -> dict:
    cpu = cpu_model()
    import tenseal

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "tenseal": getattr(tenseal, "__version__", "?"),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", "unset"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tessel.targets.seal.profile",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("-o", "--output", required=True, help="where to write the JSON table")
    ap.add_argument("--reps", type=int, default=21, help="runs per latency (median; default 21)")
    ap.add_argument("--params", help="comma-separated parameter sets (default: all candidates)")
    ap.add_argument("--debug", action="store_true")
    args = ap.parse_args(argv)

    def body() -> int:
        chosen = [by_name(n) for n in args.params.split(",")] if args.params else list(CANDIDATES)
        table = {
            "generated_by": PROFILE_COMMAND
            if not args.params
            else f"python -m tessel.targets.seal.profile -o {args.output} --params {args.params}",
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
            print(
                f"{p.name:14} {p.describe():40} rotate {e['latency_us']['rotate']:8.1f} us  multiply {e['latency_us']['multiply']:8.1f} us  "
                f"fresh {e['noise_bits']['fresh']} bits, multiply -{e['noise_bits']['multiply']}  ({time.perf_counter() - start:.1f} s)",
                file=sys.stderr,
            )
            for k, lv in enumerate(e.get("levels", []), start=1):
                print(
                    f"{'':14} level {k}: rotate {lv['latency_us']['rotate']:8.1f} us  multiply {lv['latency_us']['multiply']:8.1f} us  "
                    f"fresh {lv['noise_bits']['fresh']} bits (switched product {lv['noise_bits']['fresh3']})",
                    file=sys.stderr,
                )
        with open(args.output, "w") as f:
            json.dump(table, f, indent=1)
            f.write("\n")
        return 0

    try:
        return body()
    except TesselError as err:  # one line, like the tools (this module sits below them)
        if args.debug:
            raise
        print(f"profile: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
