"""Synthesis driver: sketch search, decomposition, exact scheduling, merging, size buckets.

    synthesize(topo, kind, size)             # no sketch: search candidate sketches
    synthesize(topo, kind, size, sketch)     # TACCL's mode: the user's sketch

For each sketch: the decomposition (CP-SAT routing relaxation -> greedy list scheduling ->
CP-SAT polish of the order on the fixed routes; ALLTOALL routes come from the HiGHS LP),
then chunk merging ranked by the simulator, which also picks between the greedy and the
polished schedule. A multi-node ALLGATHER whose NICs bound it (bounds.py: the NIC bound above
the ingress bound) also gets the NIC pipeline (nic_pipeline.py) at chunkups 1, 2, 4 and 8, each with its
InfiniBand sends chunk by chunk and with one message per owner and round but for the last one
or two owners (under the user's sketch, when there is one), simulated like the rest. The best candidate by simulated time then gets the exact CP-SAT model
(routing and scheduling together) when the machine has at most `exact_max_gpus` GPUs,
warm-started from the sketch's best schedule in the model as a complete integer solution
whose makespan bounds the search, so in the model it is never worse than greedy; it is kept
only if the simulator agrees it is faster. REDUCE_SCATTER is synthesized directly (in-trees
to each chunk's owner); ALLREDUCE is REDUCE_SCATTER's flows followed, chunk by chunk, by ALLGATHER's.
"""

from __future__ import annotations

import time

from tessel.dialects.coll.bounds import ingress_bound, nic_bound
from tessel.dialects.coll.model import Collective, CollKind, LinkKind, Sketch, Topology
from tessel.dialects.coll.plan import Plan
from tessel.ir.diagnostics import TesselError

from . import alltoall, cpsat
from .merge import MIN_ALPHA_SHARE, best_merge
from .nic_pipeline import nic_pipeline
from .order import in_units, list_schedule, shortest_routes, units_makespan
from .problem import Problem, build_problem
from .result import Candidate, Options, Result


def candidate_sketches(topo: Topology, kind: CollKind, size: int) -> list[Sketch]:
    """Sketches worth trying when the user gives none (TACCL's examples, generalised)."""
    chunkups: tuple[int, ...] = (1, 2)
    if kind == CollKind.ALLTOALL or topo.gpus > 32:
        chunkups = (1,)  # large machines: chunkup 1 already gives tens of thousands of sends
    if topo.nodes == 1:
        out = [Sketch(name=f"auto-c{c}", chunkup=c) for c in chunkups]
        if kind == CollKind.ALLREDUCE:
            out.append(Sketch(name="auto-leaders", chunkup=1, reduce_roots="leaders"))
        return out
    per = topo.gpus_per_node
    nics = max(1, len(topo.nics) // topo.nodes)
    conns: list[tuple[str, str | list[tuple[int, int]]]] = []
    if per > 1:
        conns.append(("relay", [(0, 1)]))
    if nics > 1:
        size_of = per // nics
        if size_of > 1:
            conns.append(("per-nic", [(k * size_of + 1, k * size_of) for k in range(nics)]))
    conns.append(("direct", "direct-map"))
    if kind == CollKind.ALLTOALL:
        conns.append(("full", "fully-connected"))
    out = []
    for label, conn in conns:
        for c in chunkups:
            out.append(Sketch(name=f"auto-{label}-c{c}", conn=conn, chunkup=c))
        if kind == CollKind.ALLREDUCE:
            out.append(Sketch(name=f"auto-{label}-leaders", conn=conn, chunkup=1, reduce_roots="leaders"))
    return out


def decompose(p: Problem, opts: Options, limit: float) -> tuple[list[Plan], dict[str, float]]:
    """relaxation -> greedy order -> polish (or LP -> greedy -> polish for ALLTOALL).

    Returns the schedules best in the model first: polish when it beats greedy in the
    model's integer units, then greedy. The simulator picks between them (`synthesize`):
    it does not always agree with the model, whose port order the lowering cannot force.
    """
    stages: dict[str, float] = {}
    if p.coll.kind == CollKind.ALLTOALL:
        routes, bound = alltoall.route(p)
        stages["lp_bound"] = bound
    else:
        relax = cpsat.solve(
            p, "relax", time_limit=max(0.5, limit / 2), workers=opts.workers, seed=opts.seed, symmetry=opts.symmetry
        )
        if relax.status == "INFEASIBLE":
            raise TesselError(f"infeasible: no routing of {p.coll.kind} on {p.topo.name} satisfies the sketch")
        if relax.ok:
            routes = relax.routes
            stages["relax_bound"] = relax.bound
        else:  # out of time before a first solution: fall back to shortest-path trees
            routes = shortest_routes(p)
            stages["relax_timeout"] = 1.0
    greedy = list_schedule(p, routes)
    stages["greedy"] = greedy.makespan
    # the greedy order in the CP-SAT models' integer units: what polish and exact must beat
    greedy_units = units_makespan(p, in_units(p, greedy))
    stages["greedy_model"] = greedy_units * p.unit
    stages["unit"] = p.unit
    polish = cpsat.solve(
        p,
        "polish",
        routes=routes,
        hint=greedy,
        time_limit=limit / 2,
        workers=opts.workers,
        seed=opts.seed,
        symmetry=opts.symmetry,
    )
    plans = [greedy]
    if polish.ok and polish.plan is not None and round(polish.objective / p.unit) < greedy_units:
        plans.insert(0, polish.plan)
        stages["polish"] = polish.objective
    for plan in plans:
        plan.note = "decomposition"
    return plans, stages


def synthesize(
    topo: Topology,
    kind: CollKind,
    size: int,
    sketch: Sketch | None = None,
    opts: Options | None = None,
    name: str | None = None,
    root: int = 0,
) -> Result:
    opts = opts or Options()
    start = time.perf_counter()
    deadline = start + opts.time_limit
    sketches = [sketch] if sketch is not None else candidate_sketches(topo, kind, size)
    name = name or f"{kind}_{topo.name}"
    log: list[str] = []
    candidates: list[Candidate] = []
    exact_on = (
        opts.exact if opts.exact is not None else (topo.gpus <= opts.exact_max_gpus and kind != CollKind.ALLTOALL)
    )
    share = 0.5 if exact_on else 1.0
    for i, sk in enumerate(sketches):
        left = deadline - time.perf_counter()
        limit = max(0.5, left * share / (len(sketches) - i))
        coll = Collective(kind, topo.gpus, sk.chunkup, root)
        try:
            p = build_problem(topo, coll, size, sk)
        except TesselError as err:
            if sketch is not None:
                raise
            log.append(f"sketch {sk.name}: {err}")
            continue
        log.extend(f"sketch {sk.name}: {n}" for n in p.notes)
        plans, stages = decompose(p, opts, limit)
        chosen = None
        for plan in plans:  # polish (if better in the model), greedy: the simulator decides
            alg, merged, t, merges = best_merge(plan, name)
            if plan is plans[-1]:
                stages["greedy_sim"] = merges["1"]  # greedy, unmerged
            if chosen is None or t < chosen[2] - 1e-9:
                chosen = (plan, alg, t, merges)
        assert chosen is not None
        plan, alg, t, merges = chosen
        stages["decomposition"] = t
        candidates.append(Candidate(sk, plan, alg, t, stages, merges, hint=plans[0]))
        log.append(f"sketch {sk.name} ({sk.describe()}): decomposition {t:.2f} us")
    nic, ingress = (
        nic_bound(topo, Collective(kind, topo.gpus), size),
        ingress_bound(topo, Collective(kind, topo.gpus), size),
    )
    if nic is not None and ingress is not None and ingress > nic:
        log.append(
            f"NIC pipeline: not tried, {topo.name} is bound inside its nodes (ingress {ingress:.1f} us > NICs {nic:.1f} us)"
        )
    elif nic is not None:
        nic_sketches = (
            [sketch] if sketch is not None else [Sketch(name=f"auto-nic-c{c}", chunkup=c) for c in NIC_CHUNKUPS]
        )
        for i, sk in enumerate(nic_sketches):
            if i and topo.gpus > opts.exact_max_gpus and time.perf_counter() > deadline:
                # a few seconds a chunkup on tens of GPUs, tens on a hundred: those wait for time
                log.append(f"sketch {sk.name}: NIC pipeline skipped, out of time")
                continue
            candidate = _nic_candidate(topo, Collective(kind, topo.gpus, sk.chunkup, root), size, sk, name)
            if candidate is not None:
                candidates.append(candidate)
                log.append(
                    f"sketch {candidate.sketch.name} ({candidate.sketch.describe()}): NIC pipeline {candidate.time:.2f} us"
                )
    if not candidates:
        raise TesselError(f"infeasible: no sketch gives a {kind} on {topo.name}: " + "; ".join(log))
    best = min(candidates, key=lambda c: c.time)
    stages = dict(best.stages)
    plan, alg, t = best.plan, best.algorithm, best.time
    if exact_on and plan.note == "nic pipeline":
        # the pipeline relays through one sender per NIC, off the shortest paths that are the
        # exact model's candidate links: the model cannot hold it, not even as a warm start
        log.append("exact: skipped; the NIC pipeline's routes are outside the exact model's candidate links")
    elif exact_on:
        coll = Collective(kind, topo.gpus, best.sketch.chunkup, root)
        p = build_problem(topo, coll, size, best.sketch)
        left = max(1.0, deadline - time.perf_counter())
        exact = cpsat.solve(
            p,
            "exact",
            hint=best.hint or best.plan,
            time_limit=left,
            workers=opts.workers,
            seed=opts.seed,
            symmetry=opts.symmetry,
        )
        if exact.ok and exact.plan is not None:
            ealg, eplan, et, emerges = best_merge(exact.plan, name)
            stages["exact"] = et
            stages["exact_sim"] = emerges["1"]  # unmerged
            stages["exact_model"] = exact.objective
            if exact.hint is not None:
                stages["exact_hint"] = exact.hint
            stages["exact_bound"] = exact.bound
            stages["exact_optimal"] = float(exact.status == "OPTIMAL")
            log.append(
                f"exact ({exact.status}, {exact.wall:.1f} s): {et:.2f} us, model {exact.objective:.2f}, "
                f"warm start {exact.hint if exact.hint is not None else float('nan'):.2f}, bound {exact.bound:.2f}"
                + "".join(f"; {n}" for n in exact.notes)
            )
            if et < t - 1e-9:
                plan, alg, t = exact.plan, ealg, et
                plan.note = "exact"
        else:
            log.append(
                f"exact: {exact.status} after {exact.wall:.1f} s; keeping the decomposition"
                + "".join(f"; {n}" for n in exact.notes)
            )
    alg.name = name
    return Result(alg, plan, t, best.sketch, size, time.perf_counter() - start, stages, candidates, log)


NIC_CHUNKUPS = (1, 2, 4, 8)  # finer chunks shorten the pipeline's fill and drain, at an alpha each
# nic_pipeline's `tail`: every chunk its own message, or an owner's chunks one message but for
# the last one or two owners' (on the 8-GPU hubs with two NICs: 1.116x the NIC bound, 1.078x)
NIC_TAILS = (None, 1, 2)


def _nic_candidate(topo: Topology, coll: Collective, size: int, sketch: Sketch, name: str) -> Candidate | None:
    """The NIC pipeline (nic_pipeline.py) under `sketch`, merged and simulated like every other
    schedule; its sketch is reported as the InfiniBand pairs it uses. None where InfiniBand is
    latency-bound at this chunk size: there, merged messages win and rounds of single chunks
    cannot compete (and merging them would cost the simulations of every window)."""
    chunk = coll.chunk_bytes(size)
    if any(
        link.kind == LinkKind.IB and link.alpha >= MIN_ALPHA_SHARE * link.cost(chunk) for link in topo.links.values()
    ):
        return None
    try:
        p = build_problem(topo, coll, size, sketch)
    except TesselError:
        return None
    best = None
    for tail in NIC_TAILS:
        plan = nic_pipeline(p, tail)
        if plan is None:
            return None
        alg, merged, t, merges = best_merge(plan, name)
        if best is None or t < best[3] - 1e-9:
            best = (plan, alg, merged, t, merges)
    assert best is not None
    plan, alg, merged, t, merges = best
    per = topo.gpus_per_node
    pairs = sorted({(s.src % per, s.dst % per) for s in plan.sends if topo.links[(s.src, s.dst)].kind == LinkKind.IB})
    used = Sketch(name=sketch.name, nnodes=sketch.nnodes, conn=pairs, chunkup=coll.chunkup)
    stages = {
        "nic_pipeline": t,
        "decomposition": t,
        "greedy_model": units_makespan(p, in_units(p, plan)) * p.unit,
        "greedy_sim": merges["1"],
        "unit": p.unit,
    }
    return Candidate(used, plan, alg, t, stages, merges, hint=plan)


def buckets(sizes: list[int]) -> list[tuple[int, int | None]]:
    """Size windows [min, max) around each synthesis size, split at geometric midpoints."""
    sizes = sorted(sizes)
    edges = [int((a * b) ** 0.5) for a, b in zip(sizes, sizes[1:])]
    lows = [0] + edges
    highs: list[int | None] = [*edges, None]
    return list(zip(lows, highs))


def synthesize_buckets(
    topo: Topology, kind: CollKind, sizes: list[int], sketch: Sketch | None = None, opts: Options | None = None
) -> list[Result]:
    """One algorithm per size bucket, each valid for its [min_bytes, max_bytes) window."""
    results = []
    for size, (lo, hi) in zip(sorted(sizes), buckets(sizes)):
        r = synthesize(topo, kind, size, sketch, opts, name=f"{kind}_{topo.name}_{size}")
        r.algorithm.min_bytes, r.algorithm.max_bytes = lo, hi
        results.append(r)
    return results
