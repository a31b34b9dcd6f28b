"""After a search, each stage's best schedule checked in the model tuned as a whole.

A candidate is timed with its stage swapped into the model under default schedules
(in_model.py); the model the records build has every stage tuned at once, and a stage
there can lose what it won alone. ResNet-18's Winograd output transforms are the case
(Zen 4, 2 threads): their tuned schedules split the work across the threads differently
from the product before them, whose tuned schedule split it differently again, so each
read its input from the other core's cache and took 0.047-0.147 ms where the default
schedules, which follow the product's split, took 0.013-0.040.

`settle` compiles the model twice, with default schedules and with the records' best,
times every launch inside whole runs of each (the native plan's clock), and for every
stage whose best is not its default appends two records timed "joint": the best
schedule's time in the tuned model and the default's in the default model. The log's
best for the stage is then the faster of the two (Records.best compares the newest kind
of time), so a schedule that loses in the tuned model is not applied.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp

from tessel.passes.sched.tuning.keys import stage_keys
from tessel.passes.sched.tuning.records import Records
from tessel.tune.in_model import ModelSource, model_inputs


def settle(
    source: ModelSource,
    records: Records,
    kernels: ModuleOp,
    host: str,
    threads: int,
    runs: int = 30,
    log: Callable[[str], None] = lambda s: None,
) -> list[str]:
    """Append the "joint" records described above to `records` (a log with a file), for the
    model `kernels` (its kernel-level module) came from; the stages whose default schedule
    won, by name."""
    assert records.path is not None, "settle appends to a tuning log on disk"
    keys = stage_keys(kernels, host)
    names: dict[str, list[str]] = collections.defaultdict(list)
    for name, key in keys.items():
        names[key].append(name)
    best = {key: records.best(key) for key in names}
    tuned = {key: b for key, b in best.items() if b is not None and not b.get("knobs", {}).get("default")}
    if not tuned:
        return []
    default_ms = _launch_times(source, None, threads, runs)
    tuned_ms = _launch_times(source, str(records.path), threads, runs)
    entries, kept = [], []
    for key, b in tuned.items():
        default = next((e for e in reversed(records.for_key(key)) if e.get("knobs", {}).get("default")), None)
        stage = names[key]
        if (
            default is None
            or not default.get("schedule")
            or any(n not in default_ms or n not in tuned_ms for n in stage)
        ):
            continue  # no default record to fall back on, or a stage the lowering fused with others
        before = sum(default_ms[n] for n in stage)
        after = sum(tuned_ms[n] for n in stage)
        for e, ms in ((default, before), (b, after)):
            kept_fields = {k: v for k, v in e.items() if k != "time"}  # (append stamps the time)
            entries.append(kept_fields | {"seconds": ms / 1e3, "best": ms / 1e3, "timing": "joint"})
        if after > before:
            kept.append(b["stage"])
        log(f"{b['stage']}: {before:.4f} ms default, {after:.4f} ms tuned, in their models")
    records.append(entries)
    return kept


def _launch_times(source: ModelSource, records: str | None, threads: int, runs: int) -> dict[str, float]:
    """Milliseconds per inference of every stage function of the model compiled with
    `records` (None: default schedules), its launches summed."""
    executable = source.compile(threads, records)
    try:
        inputs = model_inputs(executable)
        per_stage: dict[str, float] = collections.defaultdict(float)
        for name, _, ms in executable.profile(inputs, runs):
            per_stage[name] += ms
        return dict(per_stage)
    finally:
        executable.close()
