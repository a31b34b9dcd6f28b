"""Run algorithms for real on torch.distributed (gloo): one process per rank, MSCCL semantics.

Each rank interprets its own threadblocks, as the MSCCL runtime does on a GPU: a step runs
when its threadblock reaches it and its dependencies are done; a send posts `isend` of its
buffer rows, a receive posts `irecv` and completes (writing or reducing into its slot) when
the message arrives; copies and reductions run in place. Messages on connection
(src -> dst, channel) are matched in order through their tags. Nothing here is specific to
localhost except the default rendezvous address: the same worker runs on a cluster given
MASTER_ADDR/MASTER_PORT and one process per GPU.

`execute` spawns the ranks, runs every algorithm on seeded inputs and checks each rank's
output buffer against the collective's definition (dialects/coll/reference.py, check).
"""

from __future__ import annotations

import os
import socket
import time
import traceback
from dataclasses import dataclass

import numpy as np

from tessel.dialects.coll.model import Algorithm
from tessel.dialects.coll.reference import check, random_inputs
from tessel.ir.diagnostics import TesselError


@dataclass
class Report:
    name: str
    ok: bool
    error: str | None
    seconds: float  # slowest rank's time for the algorithm, after a barrier
    ranks: int
    elems: int


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_rank(alg: Algorithm, rank: int, x: np.ndarray, timeout: float = 300.0):  # noqa: ANN201 - torch types
    """Execute rank `rank`'s program on its input (chunks x elems); returns its output buffer.

    Every threadblock is a thread that runs its steps in order, as a GPU threadblock does;
    a step first waits for the steps it depends on. Sends and receives block until the
    message has gone or arrived (gloo's `Work.wait`), which releases the GIL.
    """
    import threading

    import torch
    import torch.distributed as dist

    g = alg.gpus[rank]
    elems = x.shape[1]
    bufs = {
        "i": torch.from_numpy(np.ascontiguousarray(x)),
        "o": torch.full((g.output_chunks, elems), float("nan"), dtype=torch.float32),
        "s": torch.full((g.scratch_chunks, elems), float("nan"), dtype=torch.float32),
    }
    done = [[threading.Event() for _ in tb.steps] for tb in g.tbs]
    errors: list[str] = []

    def rows(slot: tuple[str, int] | None, count: int) -> torch.Tensor:
        if slot is None:  # the IR verifier and the plan lowering give every step its slots
            raise ValueError("a step without the buffer slot it needs")
        buf, off = slot
        return bufs[buf][off : off + count]

    def wait(work: dist.Work | None) -> None:
        if work is not None:  # gloo returns a handle for every isend/irecv
            work.wait()

    def threadblock(t: int) -> None:
        tb = g.tbs[t]
        sent = received = 0
        try:
            for s, step in enumerate(tb.steps):
                for dt, ds in step.deps:
                    if not done[dt][ds].wait(timeout):
                        raise TimeoutError(f"tb {t} step {s} waited {timeout:.0f} s for tb {dt} step {ds}")
                if step.op == "send":
                    tag = tb.channel * 1_000_000 + sent
                    sent += 1
                    wait(dist.isend(rows(step.src, step.count).contiguous(), tb.send, tag=tag))
                elif step.op in ("recv", "recv_reduce_copy"):
                    tag = tb.channel * 1_000_000 + received
                    received += 1
                    tmp = torch.empty((step.count, elems), dtype=torch.float32)
                    wait(dist.irecv(tmp, tb.recv, tag=tag))
                    if step.op == "recv":
                        rows(step.dst, step.count).copy_(tmp)
                    else:
                        rows(step.dst, step.count).copy_(rows(step.src, step.count) + tmp)
                elif step.op == "copy":
                    rows(step.dst, step.count).copy_(rows(step.src, step.count))
                elif step.op == "reduce":
                    rows(step.dst, step.count).add_(rows(step.src, step.count))
                done[t][s].set()
        except Exception as err:  # surfaced by the caller with the rank
            errors.append(f"tb {t}: {type(err).__name__}: {err}")
            for row in done:  # unblock the others so the rank can report
                for e in row:
                    e.set()

    threads = [threading.Thread(target=threadblock, args=(t,), daemon=True) for t in range(len(g.tbs))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout)
    if errors:
        raise RuntimeError(errors[0])
    if any(th.is_alive() for th in threads):
        raise TimeoutError(f"threadblocks still running after {timeout:.0f} s")
    return bufs["o"].numpy().copy()


def _worker(rank: int, world: int, port: int, jobs: list, out) -> None:  # noqa: ANN001
    try:
        import torch.distributed as dist

        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
        results = []
        for alg, elems, seed in jobs:
            x = random_inputs(alg, elems, seed)[rank]
            dist.barrier()
            start = time.perf_counter()
            y = run_rank(alg, rank, x)
            seconds = time.perf_counter() - start
            dist.barrier()
            results.append((y, seconds))
        dist.destroy_process_group()
        out.put((rank, results, None))
    except Exception:  # reported by the parent as one line, with the rank
        out.put((rank, None, traceback.format_exc()))


def execute(algs: list[Algorithm], elems: int = 256, seed: int = 0, timeout: float = 600.0) -> list[Report]:
    """Run each algorithm once on `ranks` gloo processes and check every rank's output."""
    if not algs:
        return []
    world = algs[0].collective.ranks
    for a in algs:
        if a.collective.ranks != world:
            raise TesselError("algorithms executed together must have the same number of ranks")
    try:
        import torch.multiprocessing as mp
    except ImportError:
        raise TesselError("--execute gloo needs torch (pip install torch==2.13.0)") from None
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    port = _free_port()
    jobs = [(a, elems, seed + i) for i, a in enumerate(algs)]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    procs = [ctx.Process(target=_worker, args=(r, world, port, jobs, out), daemon=True) for r in range(world)]
    for p in procs:
        p.start()
    outputs: dict[int, list] = {}
    deadline = time.monotonic() + timeout
    try:
        while len(outputs) < world:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TesselError(
                    f"gloo execution timed out after {timeout:.0f} s ({len(outputs)} of {world} ranks finished)"
                )
            try:
                rank, results, error = out.get(timeout=min(left, 5.0))
            except Exception:
                dead = [r for r, p in enumerate(procs) if not p.is_alive() and r not in outputs]
                if dead:
                    raise TesselError(
                        f"gloo rank {dead[0]} exited with code {procs[dead[0]].exitcode} before reporting"
                    ) from None
                continue
            if error is not None:
                last = error.strip().splitlines()[-1]
                raise TesselError(f"gloo rank {rank} failed: {last}")
            outputs[rank] = results
    finally:
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    reports = []
    for i, (alg, elems_, s) in enumerate(jobs):
        inputs = random_inputs(alg, elems_, s)
        got = [outputs[r][i][0] for r in range(world)]
        error = check(alg, inputs, got)
        seconds = max(outputs[r][i][1] for r in range(world))
        reports.append(Report(alg.name, error is None, error, seconds, world, elems_))
    return reports
