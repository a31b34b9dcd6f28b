"""Measuring candidates on a Ray cluster (`tessel-tune --ray ADDRESS`): the same build and
run jobs as `LocalMeasurer`, as Ray tasks.

Builds (LLVM at O3, the slow part) go wherever the cluster has a free CPU. Timing two
candidates on one machine at once would measure their contention, so runs are pinned one
per node at a time (node affinity), each asking for `threads` CPUs: a cluster of n nodes
times n candidates at once. A run on another node than its build recompiles from the IR
(the object cache is per machine) and still checks the result against the default
schedule before timing it. A task that raises, a worker that dies and a task past
`timeout` are failed records, as locally; a timed-out task is force-cancelled.
Candidates are timed alone with their caches flushed ("cold"): timing inside the model
would need the model's file on every node.

ADDRESS is what `ray.init` takes: `auto` (the cluster this machine is part of),
`ray://HOST:10001` (a remote head), or `local` (start a private instance, for testing).
The workers must have Tessel installed at the same version.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from tessel.ir.diagnostics import TesselError
from tessel.tune.measure import Candidate, Result, build_job, run_job
from tessel.tune.quiet import wait_for_quiet


def _ray():
    try:
        import ray
    except ImportError:
        raise TesselError("--ray needs the 'ray' package (pip install 'tessel[ray]')") from None
    return ray


class RayMeasurer:
    def __init__(
        self, address: str, threads: int = 2, repeats: int = 5, timeout: float = 60.0, quiet_wait: float = 10.0
    ):
        ray = self.ray = _ray()
        self.threads, self.repeats, self.timeout, self.quiet_wait = threads, repeats, timeout, quiet_wait
        self.owned = not ray.is_initialized()
        if self.owned:
            try:
                if address == "local":
                    ray.init(num_cpus=None, include_dashboard=False, log_to_driver=False)
                else:
                    ray.init(address=address, log_to_driver=False)
            except Exception as err:  # ConnectionError, RuntimeError... with Ray's own message
                raise TesselError(
                    f"--ray {address}: cannot connect: {str(err).splitlines()[0] if str(err) else type(err).__name__}"
                ) from None
        self.nodes = [n["NodeID"] for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]
        if not self.nodes:
            raise TesselError(f"--ray {address}: the cluster has no live node with a CPU")
        self._build = ray.remote(num_cpus=1, max_retries=0)(build_job)
        self._run = ray.remote(max_retries=0)(run_job)

    def measure(self, candidates: Sequence[Candidate]) -> list[Result]:
        ray = self.ray
        results = [Result(c.task.key, c.knobs, None) for c in candidates]
        builds = [self._build.remote(c.task, c.knobs, self.threads) for c in candidates]
        deadline = time.monotonic() + self.timeout * max(1, len(candidates))
        for i, ref in enumerate(builds):
            outcome = self._get(ref, max(1.0, min(self.timeout, deadline - time.monotonic())), "build")
            if isinstance(outcome, str):
                results[i].error = outcome
            else:
                results[i].build_s, results[i].schedule = outcome
        # this machine times too when it is a node: wait (bounded) for its CPUs to go idle
        idle = wait_for_quiet(limit=self.quiet_wait) if self.quiet_wait > 0 else float("nan")
        todo = [i for i, r in enumerate(results) if r.error is None]
        cpus = min(self.threads, self._node_cpus())
        for wave in range(0, len(todo), len(self.nodes)):
            batch = todo[wave : wave + len(self.nodes)]
            refs = []
            for node, i in zip(self.nodes, batch):
                strategy = ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy(node, soft=False)
                c = candidates[i]
                refs.append(
                    self._run.options(num_cpus=cpus, scheduling_strategy=strategy).remote(
                        c.task, c.knobs, self.threads, self.repeats
                    )
                )
            for i, ref in zip(batch, refs):
                results[i].meta["idle"] = round(idle, 2)
                outcome = self._get(ref, self.timeout, "run")
                if isinstance(outcome, str):
                    results[i].error = outcome
                else:
                    results[i].seconds, results[i].best, results[i].meta["timing"] = outcome
        return results

    def _node_cpus(self) -> int:
        return int(min(n["Resources"]["CPU"] for n in self.ray.nodes() if n["NodeID"] in self.nodes))

    def _get(self, ref, timeout: float, what: str):
        ray = self.ray
        try:
            return ray.get(ref, timeout=timeout)
        except ray.exceptions.GetTimeoutError:
            ray.cancel(ref, force=True)
            return f"timed out after {timeout:.0f} s ({what})"
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError):
            return f"worker died ({what}: crash)"
        except ray.exceptions.RayTaskError as err:
            cause = err.cause if getattr(err, "cause", None) is not None else err
            return f"{what}: {type(cause).__name__}: {str(cause).splitlines()[-1] if str(cause) else ''}"

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()
