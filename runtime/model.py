"""A compiled model as a callable: the memory plan made real, run through the native executor.

The plan (`plan.json`, or the same dictionary straight from the compiler) names every buffer
a run touches: fresh allocations (the arena and kernel temporaries), views into them, and
weights. An *instance* of the plan owns one set of allocations and the launch descriptors
pointing into them; weights are shared, read-only, by all instances.

Concurrency, like an inference session: a call takes a free instance, runs, and gives it
back, so concurrent calls never share an arena. How many run at once depends on the thread
count the model runs with:

- one thread: the executor runs every launch inline on the calling thread, so calls from
  several Python threads run truly in parallel (ctypes releases the GIL), each on its own
  instance (created on demand, at most `max_concurrency`, then reused);
- several threads: the executor's worker pool is one per library and publishes one job at
  a time, and a single call already keeps every core busy, so calls take the code's pool
  lock and run one after another (a second arena would only cost memory).
"""

from __future__ import annotations

import math
import os
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tessel.runtime.artefact import Port
from tessel.runtime.buffers import OutputPool, aligned_empty
from tessel.runtime.errors import TesselError
from tessel.runtime.library import NativeCode
from tessel.runtime.native import NativePlan


@dataclass(frozen=True)
class Timing:
    """Wall times of `runs` calls, in milliseconds."""

    runs: int
    median_ms: float
    mean_ms: float
    min_ms: float
    max_ms: float

    def __str__(self) -> str:
        return f"median {self.median_ms:.3f} ms over {self.runs} runs (min {self.min_ms:.3f}, max {self.max_ms:.3f})"


@dataclass(frozen=True)
class LaunchTime:
    """One kernel launch of a profile: its name, parallel extent and median time."""

    kernel: str
    extent: int
    median_ms: float


class _Instance:
    """One set of the plan's buffers and the descriptors that point into them."""

    def __init__(self, model: Model):
        buffers: list[np.ndarray] = []
        for b in model.plan["buffers"]:
            kind = b["kind"]
            if kind == "alloc":
                buffers.append(aligned_empty(b["shape"], np.dtype(b["dtype"])))
            elif kind == "view":
                owner = buffers[b["of"]].reshape(-1).view(np.uint8)
                dt = np.dtype(b["dtype"])
                size = math.prod(b["shape"]) * dt.itemsize
                buffers.append(owner[b["offset"] : b["offset"] + size].view(dt).reshape(b["shape"]))
            elif kind == "weight":
                buffers.append(model.weights[b["name"]])
            else:
                raise TesselError(f"unknown buffer kind {kind!r} in the model's plan")
        self.buffers = buffers  # keeps the memory the descriptors point to alive

        def slot(s: Mapping[str, int]) -> int | tuple[str, int]:
            if "buffer" in s:
                return int(buffers[s["buffer"]].ctypes.data)
            if "in" in s:
                return ("in", s["in"])
            if "out" in s:
                return ("out", s["out"])
            return int(s["const"])

        launches = [
            (model.symbols[launch["symbol"]], [slot(s) for s in launch["args"]], int(launch["extent"]))
            for launch in model.plan["launches"]
        ]
        symbols = model.symbols
        self.native = NativePlan(symbols["tessel.run_plan"], symbols["tessel.pool_stop"], launches, model.threads)


class Model:
    """A compiled model, called like a function: `model(x)` or `model(input=x)` returns the
    outputs by name.

    >>> outputs = model(np.zeros((1, 3, 224, 224), np.float32))  # doctest: +SKIP
    >>> outputs["logits"].shape  # doctest: +SKIP
    (1, 1000)
    """

    def __init__(
        self,
        code: NativeCode,
        plan: dict[str, Any],
        weights: Mapping[str, np.ndarray],
        inputs: Sequence[Port],
        outputs: Sequence[Port],
        threads: int,
        max_concurrency: int | None = None,
    ):
        if threads < 1:
            raise TesselError(f"threads must be at least 1, got {threads}")
        self.code = code
        self.plan = plan
        self.weights = weights
        self._inputs = list(inputs)
        self._outputs = list(outputs)
        self._pool = OutputPool([(p.shape, p.dtype) for p in self._outputs])
        self.threads = threads
        names = {launch["symbol"] for launch in plan["launches"]} | {"tessel.run_plan", "tessel.pool_stop"}
        self.symbols = {name: code.address(name) for name in names}
        # several threads: one arena, calls in turn under the pool lock (module docstring)
        self.max_concurrency = 1 if threads > 1 else max(1, max_concurrency or (os.cpu_count() or 1))
        self._free: list[_Instance] = []
        self._made = 0
        self._cond = threading.Condition()
        self._closed = False
        self._finalizer = weakref.finalize(self, code.stop_pool)

    # ------------------------------------------------------------------ the signature

    @property
    def inputs(self) -> list[Port]:
        """The inputs in call order: name, shape and dtype of each."""
        return list(self._inputs)

    @property
    def outputs(self) -> list[Port]:
        """The outputs in the order of the returned dictionary."""
        return list(self._outputs)

    def _arrange(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[np.ndarray]:
        ports = self._inputs
        if len(args) > len(ports):
            raise TesselError(f"the model takes {len(ports)} inputs, {len(args)} were given")
        given = dict(zip((p.name for p in ports), args))
        for name, value in kwargs.items():
            if name in given:
                raise TesselError(f"input '{name}' is given twice (by position and by name)")
            given[name] = value
        unknown = sorted(set(given) - {p.name for p in ports})
        if unknown:
            raise TesselError(f"no model input named {', '.join(unknown)} (inputs: {', '.join(p.name for p in ports)})")
        arrays = []
        for p in ports:
            if p.name not in given:
                raise TesselError(f"input '{p.name}' is missing (the model takes {self._signature(self._inputs)})")
            value = given[p.name]
            a = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=p.dtype)
            if a.shape != p.shape or a.dtype != p.dtype:
                raise TesselError(
                    f"input '{p.name}' is {a.dtype}{list(a.shape)}, the model takes {p.dtype}{list(p.shape)}"
                )
            arrays.append(np.ascontiguousarray(a))
        return arrays

    @staticmethod
    def _signature(ports: Sequence[Port]) -> str:
        return ", ".join(f"{p.name}: {p.dtype}{list(p.shape)}" for p in ports)

    # ------------------------------------------------------------------ running

    def _acquire(self) -> _Instance:
        with self._cond:
            while True:
                if self._closed:
                    raise TesselError("the model was closed")
                if self._free:
                    return self._free.pop()
                if self._made < self.max_concurrency:
                    self._made += 1
                    break
                self._cond.wait()
        try:
            return _Instance(self)
        except BaseException:
            with self._cond:
                self._made -= 1
                self._cond.notify()
            raise

    def _release(self, instance: _Instance) -> None:
        with self._cond:
            self._free.append(instance)
            self._cond.notify()

    def _run(self, instance: _Instance, first: int = 0, count: int | None = None) -> None:
        if self.threads > 1:
            with self.code.pool_lock:
                instance.native.run(first, count)
        else:
            instance.native.run(first, count)

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, np.ndarray]:
        """Run the model on inputs given by position (in `inputs` order) or by name; the
        outputs by name (the caller owns them: arrays of an earlier call are reused only
        once nothing refers to them, buffers.OutputPool)."""
        ins = self._arrange(args, kwargs)
        outs = self._pool.take()
        instance = self._acquire()
        try:
            instance.native.patch(ins, outs)
            self._run(instance)
        finally:
            self._release(instance)
        return {p.name: o for p, o in zip(self._outputs, outs)}

    def random_inputs(self, seed: int = 0) -> dict[str, np.ndarray]:
        """Reproducible inputs of the right shapes and types (normal floats, small integers)."""
        rng = np.random.default_rng(seed)
        out: dict[str, np.ndarray] = {}
        for p in self._inputs:
            if p.dtype.kind == "f":
                out[p.name] = rng.standard_normal(p.shape).astype(p.dtype)
            elif p.dtype == np.bool_:
                out[p.name] = rng.integers(0, 2, p.shape).astype(np.bool_)
            else:
                out[p.name] = rng.integers(0 if p.dtype.kind == "u" else -8, 8, p.shape).astype(p.dtype)
        return out

    def benchmark(self, n: int = 20, inputs: Mapping[str, np.ndarray] | None = None, warmup: int = 1) -> Timing:
        """Time `n` calls (after `warmup` untimed ones) on `inputs` (default: random ones).

        >>> model.benchmark(50).median_ms  # doctest: +SKIP
        17.4
        """
        if n < 1:
            raise TesselError(f"benchmark needs at least 1 run, got {n}")
        feed = dict(inputs) if inputs is not None else self.random_inputs()
        for _ in range(warmup):
            self(**feed)
        times = []
        for _ in range(n):
            start = time.perf_counter()
            self(**feed)
            times.append((time.perf_counter() - start) * 1e3)
        return Timing(n, float(np.median(times)), float(np.mean(times)), min(times), max(times))

    def profile(self, runs: int = 10, inputs: Mapping[str, np.ndarray] | None = None) -> list[LaunchTime]:
        """The median time of every kernel launch over `runs` runs, in launch order, each
        timed by the native plan inside a whole run (runtime/native.py)."""
        ins = self._arrange((), dict(inputs) if inputs is not None else self.random_inputs())
        outs = [aligned_empty(p.shape, p.dtype) for p in self._outputs]
        launches = self.plan["launches"]
        samples: list[list[float]] = [[] for _ in launches]
        instance = self._acquire()
        try:
            instance.native.patch(ins, outs)
            self._run(instance)
            instance.native.time_launches(slice(None))
            self._run(instance)
            native = bool(instance.native.elapsed().any())  # False: saved before plans had clocks
            for _ in range(max(1, runs)):
                if native:
                    self._run(instance)
                    for i, seconds in enumerate(instance.native.elapsed()):
                        samples[i].append(float(seconds) * 1e3)
                    continue
                for i in range(len(launches)):
                    start = time.perf_counter()
                    self._run(instance, i, 1)
                    samples[i].append((time.perf_counter() - start) * 1e3)
        finally:
            instance.native.time_launches(slice(None), on=False)
            self._release(instance)
        return [
            LaunchTime(str(launch["name"]), int(launch["extent"]), float(np.median(s)))
            for launch, s in zip(launches, samples)
        ]

    def close(self) -> None:
        """Stop the executor's worker threads and free the arenas; later calls are errors."""
        with self._cond:
            self._closed = True
            self._free.clear()
            self._cond.notify_all()
        self._finalizer()

    def __enter__(self) -> Model:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} ({self._signature(self._inputs)}) -> ({self._signature(self._outputs)}), "
            f"{self.threads} thread{'s' if self.threads > 1 else ''}>"
        )
