"""The measured cost table: per parameter set, the median latency of every BFV operation and
the noise budget it consumes, both measured on SEAL by `python -m tessel.targets.seal.profile`
(written to `costs.json` beside this file, with the machine and the command that made it).

The table is data between the two sides, so its format lives with the dialect: the SEAL
target's profiler writes it, the passes read it (latencies drive the synthesizer's cost
and the choice of parameters; noise figures drive the choice of parameters) and no pass
ever runs SEAL. Nothing here is hard-coded: a missing table is an error that names the
command to run.

Sets with several data primes also have one sub-entry per lower level of their modulus
chain (`levels`: level k is after k modulus switches): the latency of every server
operation there, what each consumes, the budget a fresh ciphertext keeps when switched down
to it (`fresh`) and the budget a switched size-3 product keeps (`fresh3`: the rounding of a
size-3 switch costs a few bits more). `he-mod-switch` plans with them.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache

from tessel.ir.diagnostics import TesselError

from .params import CANDIDATES, ParamSet

TABLE = os.path.join(os.path.dirname(__file__), "costs.json")
PROFILE_COMMAND = "python -m tessel.targets.seal.profile -o dialects/hev/costs.json"

# Operations with a latency in the table (microseconds).
LATENCY_OPS = (
    "add",
    "sub",
    "negate",
    "multiply",
    "square",
    "relinearize",
    "rotate",
    "multiply_plain",
    "add_plain",
    "sub_plain",
    "mod_switch",
    "encrypt",
    "encode",
    "decrypt",
)
# Operations with a measured noise consumption (bits) besides "fresh" (the budget of a new
# encryption).
NOISE_OPS = (
    "add",
    "sub",
    "negate",
    "multiply",
    "relinearize",
    "rotate",
    "multiply_plain",
    "add_plain",
    "sub_plain",
    "mod_switch",
)
# Latencies measured at every lower level of a chain: the server operations, and switching a
# size-3 ciphertext ("mod_switch3").
LEVEL_LATENCY_OPS = (
    "add",
    "sub",
    "negate",
    "multiply",
    "square",
    "relinearize",
    "rotate",
    "multiply_plain",
    "add_plain",
    "sub_plain",
    "mod_switch",
    "mod_switch3",
)


@dataclass(frozen=True)
class Entry:
    params: ParamSet
    latency_us: dict[str, float]
    noise_bits: dict[str, float]  # "fresh" and the consumption of each op
    plain_modulus: int
    levels: tuple[Entry, ...] = ()  # levels 1, 2, ... of the chain (after 1, 2, ... switches)
    level_index: int = 0
    source: str = ""

    @property
    def data_levels(self) -> int:
        """How many levels the chain has (data primes): a program may switch down to
        data_levels - 1."""
        return len(self.params.resolved_bits()) - 1

    def level(self, k: int) -> Entry:
        """The figures at level k (after k modulus switches)."""
        if k == 0:
            return self
        if not 0 < k < self.data_levels:
            raise TesselError(
                f"{self.params.name} has no level {k} (its chain has {self.data_levels} levels: 0 to {self.data_levels - 1})"
            )
        if len(self.levels) < k:
            raise TesselError(
                f"the cost table {self.source or ''} has no figures for level {k} of {self.params.name}; rerun: {PROFILE_COMMAND}"
            )
        return self.levels[k - 1]

    def switch_us(self, size: int) -> float:
        """Latency of switching a ciphertext of this size from this level to the next."""
        if size > 2:
            return self.latency_us.get("mod_switch3", 1.5 * self.latency_us["mod_switch"])
        return self.latency_us["mod_switch"]

    def switched_budget(self, size: int, t: int) -> float:
        """The most budget a ciphertext of this size keeps when switched down to this level."""
        key = "fresh3" if size > 2 and "fresh3" in self.noise_bits else "fresh"
        return self.noise_bits[key] - _t_correction(t, self.plain_modulus)

    def fresh_budget(self, t: int) -> float:
        return self.noise_bits["fresh"] - _t_correction(t, self.plain_modulus)

    def consumption(self, op: str, t: int) -> float:
        base = self.noise_bits.get(op, 0.0)
        if op in ("multiply", "multiply_plain"):
            base += _t_correction(t, self.plain_modulus)
        return max(base, 0.0)


def _t_correction(t: int, measured_t: int) -> float:
    """Noise scales with t: a larger t costs about log2(t/t0) bits of fresh budget and per
    multiplication (the table is measured at one t)."""
    return max(0.0, math.log2(t) - math.log2(measured_t))


@dataclass(frozen=True)
class CostTable:
    entries: dict[str, Entry]
    source: str
    meta: dict

    def entry(self, params: ParamSet) -> Entry:
        if params.name not in self.entries:
            raise TesselError(f"the cost table {self.source} has no entry for {params.name}; rerun: {PROFILE_COMMAND}")
        return self.entries[params.name]

    def available(self) -> list[Entry]:
        return [self.entries[p.name] for p in CANDIDATES if p.name in self.entries]


@lru_cache(maxsize=4)
def load(path: str = TABLE) -> CostTable:
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError:
        raise TesselError(f"no cost table at {path}: measure one with `{PROFILE_COMMAND}`") from None
    except json.JSONDecodeError as err:
        raise TesselError(f"cost table {path} is not valid JSON ({err.msg} at line {err.lineno})") from None
    known = {p.name: p for p in CANDIDATES}
    entries = {}
    for name, e in data.get("params", {}).items():
        if name not in known:
            continue
        missing = [op for op in LATENCY_OPS if op not in e.get("latency_us", {})]
        if missing or "fresh" not in e.get("noise_bits", {}):
            raise TesselError(
                f"cost table {path}: entry {name} lacks {', '.join(missing) or 'noise_bits.fresh'}; rerun: {PROFILE_COMMAND}"
            )
        t = int(data["plain_modulus"])
        levels = []
        for k, lv in enumerate(e.get("levels", []), start=1):
            missing = [op for op in LEVEL_LATENCY_OPS if op not in lv.get("latency_us", {})]
            if missing or not {"fresh", "fresh3"} <= set(lv.get("noise_bits", {})):
                raise TesselError(
                    f"cost table {path}: level {k} of {name} lacks {', '.join(missing) or 'noise_bits.fresh/fresh3'}; rerun: {PROFILE_COMMAND}"
                )
            levels.append(
                Entry(known[name], dict(lv["latency_us"]), dict(lv["noise_bits"]), t, level_index=k, source=path)
            )
        entries[name] = Entry(known[name], dict(e["latency_us"]), dict(e["noise_bits"]), t, tuple(levels), source=path)
    if not entries:
        raise TesselError(f"cost table {path} has no parameter sets; rerun: {PROFILE_COMMAND}")
    return CostTable(entries, path, {k: v for k, v in data.items() if k != "params"})
