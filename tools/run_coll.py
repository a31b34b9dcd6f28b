"""tessel-run --target nccl: synthesize (or load), verify, simulate against NCCL, emit MSCCL XML, execute.

Examples:
  tessel-run ndv2x2 --target nccl --collective allgather --size 1MB -o ag.xml
  tessel-run topo.json --target nccl --collective allgather --size 1MB --sketch sk.json
  tessel-run ndv2x2 --target nccl --collective allreduce --sizes 1KB,1MB,1GB -o ar.xml   # size buckets
  tessel-run ndv2 --target nccl --collective allgather --size 64KB --execute gloo --ranks 8
  tessel-run topo.json --target nccl --collective allgather --chunk-size 1MB --nodes 3   # TACCL's size
  tessel-run algo.mlir --target nccl --timeline links.png         # an IR file with coll.algorithm(s)

TOPOLOGY is a built-in (ndv2, ndv2xN, dgx2, dgx2xN, ringN), TACCL's topology JSON (its form is
read from its fields: link classes or matrices; see dialects/coll/taccl.py), or an .mlir module
holding a coll.topology (and coll.collective or coll.algorithm ops).

Sizes (1KB = 1024 bytes, nccl-tests' convention): --size is the per-rank BUFFER, the larger of a
rank's input and output (allgather: its output, all ranks' shares; reduce_scatter: its input).
TACCL's profiles and its algorithms count one CHUNK instead: --chunk-size 1MB on 16 ranks is an
allgather of a 16MB buffer (a rank's share split by the sketch's input_chunkup, 1 without one).
"""

from __future__ import annotations

import argparse
import time

from tessel.api import coll as api
from tessel.dialects.coll import AlgorithmOp, CollectiveOp, TopologyOp
from tessel.dialects.coll.model import Algorithm, CollKind, Sketch, Topology
from tessel.dialects.coll.simulate import SimResult
from tessel.dialects.coll.taccl import check_sketch, load_sketch_json
from tessel.dialects.coll.topologies import BUILTIN_NAMES
from tessel.dialects.context import make_context
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import read_module
from tessel.pipelines import coll as pipeline
from tessel.pipelines.coll import Options, Result, synthesize, synthesize_buckets
from tessel.tools.cli import check_output_path, write_atomically


def parse_size(text: str, flag: str = "--size") -> int:
    return api.parse_size(text, flag)


human = api.human_size


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("topology", metavar="TOPOLOGY", help=f"built-in ({BUILTIN_NAMES}), TACCL topology JSON, or .mlir")
    p.add_argument(
        "--collective", choices=[k.value for k in CollKind], help="what to synthesize (not needed for .mlir)"
    )
    p.add_argument(
        "--size",
        help="the per-rank buffer, e.g. 1MB (default 1MB): the larger of a rank's input and output "
        "(allgather: the output, every rank's share)",
    )
    p.add_argument("--sizes", help="comma-separated per-rank buffer sizes: one algorithm per size bucket")
    p.add_argument(
        "--chunk-size",
        help="TACCL's convention instead of --size: the bytes of one chunk (a rank's share split by the "
        "sketch's input_chunkup); the buffer is then that times the chunks a buffer holds",
    )
    p.add_argument("--sketch", metavar="JSON", help="TACCL communication sketch (default: search sketches)")
    p.add_argument("--nodes", type=int, help="nodes of a TACCL topology JSON (default: the sketch's nnodes, else 1)")
    p.add_argument("--root", type=int, default=0, help="root of broadcast/reduce (default 0)")
    p.add_argument("--time-limit", type=float, default=30.0, help="synthesis budget in seconds (default 30)")
    p.add_argument("--no-exact", action="store_true", help="skip the exact CP-SAT model (decomposition only)")
    p.add_argument("-o", "--output", metavar="XML", help="write MSCCL XML (one file per size bucket: NAME.SIZE.xml)")
    p.add_argument("--emit-ir", metavar="MLIR", help="write the topology and algorithm(s) as coll IR")
    p.add_argument("--timeline", metavar="PNG", help="plot link usage of the simulated schedule")
    p.add_argument(
        "--execute", choices=["gloo"], help="run on torch.distributed, one process per rank, and check the outputs"
    )
    p.add_argument(
        "--ranks",
        type=int,
        help="ranks for --execute (default: the topology's GPUs; fewer re-synthesizes on fewer nodes)",
    )
    p.add_argument("--elems", type=int, default=256, help="float32 elements per chunk for --execute (default 256)")


def _topology(args: argparse.Namespace, nodes: int | None) -> tuple[Topology, list, list]:
    """The topology, plus the collectives and algorithms of an IR input."""
    path = args.topology
    if path.endswith(".mlir"):
        module = read_module(make_context(), path)
        topos = [op for op in module.walk() if isinstance(op, TopologyOp)]
        if len(topos) != 1:
            raise TesselError(f"{path}: expected one coll.topology, found {len(topos)}")
        colls = [op for op in module.walk() if isinstance(op, CollectiveOp)]
        algs = [op.algorithm() for op in module.walk() if isinstance(op, AlgorithmOp)]
        return topos[0].topology(), colls, algs
    if nodes is not None and not path.endswith(".json"):
        raise TesselError("--nodes applies to TACCL topology JSON; built-ins name their nodes (ndv2x4)")
    return api.topology(path, nodes), [], []


def _with_nodes(args: argparse.Namespace, topo: Topology, ranks: int) -> Topology:
    """The same kind of machine with `ranks` GPUs (fewer nodes), for small real runs."""
    return api.smaller_machine(args.topology, topo, ranks, "--ranks")


def _report(
    alg: Algorithm, topo: Topology, chunk_bytes: float, size: int, wall: float | None, result: Result | None
) -> SimResult:
    kind = alg.collective.kind
    ev = pipeline.evaluate(alg, topo, chunk_bytes, size)
    sim = ev.sim
    tbs = sum(len(g.tbs) for g in alg.gpus)
    messages = alg.transfers()
    bottleneck, busy = sim.bottleneck()
    if result is not None:
        how = {"exact": "exact CP-SAT", "nic pipeline": "NIC pipeline (a sender per NIC, nodes in rounds)"}.get(
            result.plan.note, "decomposition (relaxation -> greedy order -> polish)"
        )
        if "messages" in result.plan.meta:
            how += f", {result.plan.meta['messages']} over InfiniBand"
        searched = f", best of {len(result.candidates)} sketches" if len(result.candidates) > 1 else ""
        print(
            f"synthesized {kind} of {human(size)} in {wall:.1f} s: {how}, sketch {result.sketch.describe()}{searched}"
        )
        st = result.stages
        if "exact_model" in st:
            print(
                f"  schedules before merging, in the model's integer units: greedy {st['greedy_model']:.2f} us, "
                f"exact {st['exact_model']:.2f} us (bound {st['exact_bound']:.2f}); "
                f"simulated: greedy {st['greedy_sim']:.2f} us, exact {st['exact_sim']:.2f} us"
            )
    print(f"verified: implements {kind} (chunk propagation, no races); reference interpreter agrees")
    print(
        f"schedule: {alg.collective.ranks} GPUs, {tbs} threadblocks, {messages} messages ({alg.collective.ranks * alg.collective.input_chunks} input chunks of {human(chunk_bytes)})"
    )
    print(f"simulated time {sim.time:.2f} us; busiest resource {bottleneck} ({busy:.2f} us busy)")
    best = ev.nccl_best
    parts = ", ".join(
        f"{fam} {t:.2f} us ({label}) -> {t / sim.time:.2f}x" for fam, (t, label) in sorted(ev.nccl.items())
    )
    print(f"NCCL under the same model: {parts}; speedup over NCCL's best {best / sim.time:.2f}x")
    if ev.tuner:
        print(f"NCCL's tuner would pick {ev.tuner[0]} (its estimate {ev.tuner[1]:.2f} us)")
    return sim


def run_command(args: argparse.Namespace) -> int:
    for path, flag in ((args.output, "-o"), (args.emit_ir, "--emit-ir"), (args.timeline, "--timeline")):
        check_output_path(path, flag)
    given = [
        flag for flag, v in (("--size", args.size), ("--sizes", args.sizes), ("--chunk-size", args.chunk_size)) if v
    ]
    if len(given) > 1:
        raise TesselError(f"give one of --size, --sizes and --chunk-size, not {' and '.join(given)}")
    if args.time_limit <= 0:
        raise TesselError(f"--time-limit must be positive, got {args.time_limit}")
    sketch: Sketch | None = load_sketch_json(args.sketch) if args.sketch else None
    nodes = args.nodes if args.nodes is not None else (sketch.nnodes if sketch else None)
    topo, colls, algs = _topology(args, nodes)
    if sketch is not None:
        check_sketch(sketch, topo, args.sketch)
    sizes = (
        [parse_size(x, "--sizes") for x in args.sizes.split(",")] if args.sizes else [parse_size(args.size or "1MB")]
    )
    if args.execute and args.ranks is not None and args.ranks != topo.gpus:
        _with_nodes(args, topo, args.ranks)  # fail before any work if the ranks do not fit
    print(
        f"topology {topo.name}: {topo.gpus} GPUs ({topo.nodes} node{'s' if topo.nodes > 1 else ''} x {topo.gpus_per_node}), {len(topo.links)} links, {len(topo.ports)} shared ports"
    )
    opts = Options(time_limit=args.time_limit, exact=False if args.no_exact else None)
    runs: list[tuple[Algorithm, float, int, float | None, Result | None]] = []
    if algs:
        if args.collective or given:
            raise TesselError(f"{args.topology} already holds algorithms; --collective/--size apply to synthesis")
        size = 1 << 20
        for alg in algs:
            runs.append((alg, alg.collective.chunk_bytes(size), size, None, None))
    else:
        if colls:
            if args.collective or given:
                raise TesselError(
                    f"{args.topology} holds coll.collective ops (with their sizes); --collective and --size apply to topologies only"
                )
            requests = [(c.collective().kind, [c.size.value.data], c.collective().root) for c in colls]
        else:
            if not args.collective:
                raise TesselError(
                    "--collective is required (allgather, reduce_scatter, allreduce, alltoall, broadcast, reduce)"
                )
            kind = CollKind(args.collective)
            if args.chunk_size:
                chunk = parse_size(args.chunk_size, "--chunk-size")
                chunkup = sketch.chunkup if sketch is not None else 1
                sizes = [pipeline.buffer_bytes(kind, topo.gpus, chunk, chunkup)]
                print(
                    f"--chunk-size {human(chunk)}: a per-rank buffer of {human(sizes[0])} "
                    f"({sizes[0] // chunk} chunks of {human(chunk)})"
                )
            requests = [(kind, sizes, args.root)]
        for kind, sizes, root in requests:
            if not 0 <= root < topo.gpus:
                raise TesselError(f"--root {root} is out of range 0..{topo.gpus - 1}")
            start = time.perf_counter()
            if len(sizes) == 1:
                results = [synthesize(topo, kind, sizes[0], sketch, opts, root=root)]
            else:
                results = synthesize_buckets(topo, kind, sizes, sketch, opts)
            wall = time.perf_counter() - start
            for r in results:
                runs.append((r.algorithm, r.chunk_bytes, r.size, r.wall if len(results) > 1 else wall, r))
    sims = []
    for alg, chunk_bytes, size, took, result in runs:
        if len(runs) > 1:
            window = f"[{human(alg.min_bytes)}, {human(alg.max_bytes) if alg.max_bytes else 'inf'})"
            print(f"--- {alg.name}: size {human(size)}, bucket {window}")
        sims.append(_report(alg, topo, chunk_bytes, size, took, result))
    if args.output:
        stem = args.output[:-4] if args.output.endswith(".xml") else args.output
        for alg, *_ in runs:
            path = args.output if len(runs) == 1 else f"{stem}.{human(alg.min_bytes)}.xml"
            write_atomically(path, pipeline.msccl_xml(alg))
            print(f"wrote {path} (MSCCL XML)")
    if args.emit_ir:
        from xdsl.dialects.builtin import ModuleOp

        from tessel.dialects.coll import algorithm_op, topology_op
        from tessel.ir.source import print_module

        write_atomically(
            args.emit_ir, print_module(ModuleOp([topology_op(topo)] + [algorithm_op(a) for a, *_ in runs])), "--emit-ir"
        )
        print(f"wrote {args.emit_ir} (coll IR)")
    if args.timeline:
        alg, *_ = runs[0]
        pipeline.timeline(sims[0], topo, args.timeline, f"{alg.name} on {topo.name}: {sims[0].time:.2f} us simulated")
        print(f"wrote {args.timeline} (link timeline)")
    if args.execute:
        return _execute(args, topo, runs, sketch, opts)
    return 0


def _execute(args: argparse.Namespace, topo: Topology, runs: list, sketch: Sketch | None, opts: Options) -> int:
    ranks = args.ranks or topo.gpus
    if ranks < 2:
        raise TesselError(f"--ranks must be at least 2, got {ranks}")
    if args.elems < 1:
        raise TesselError(f"--elems must be positive, got {args.elems}")
    algs = [alg for alg, *_ in runs]
    if ranks != topo.gpus:
        small = _with_nodes(args, topo, ranks)
        if sketch is not None:
            sketch = None  # the sketch was written for the larger machine
        algs = []
        for alg, _chunk_bytes, size, *_ in runs:
            r = synthesize(small, alg.collective.kind, size, None, opts, root=alg.collective.root)
            wrong = pipeline.problem(r.algorithm)
            if wrong:
                raise TesselError(wrong)
            algs.append(r.algorithm)
        print(f"re-synthesized for {small.name} ({ranks} ranks) to execute")
    print(f"executing on torch.distributed gloo: {ranks} processes, {args.elems} float32 per chunk ...", flush=True)
    ok = True
    for rep in pipeline.execute(algs, args.elems):
        status = "outputs correct" if rep.ok else f"WRONG: {rep.error}"
        print(f"gloo: {rep.name}: {status} ({rep.seconds * 1e3:.1f} ms on {rep.ranks} ranks)")
        ok &= rep.ok
    return 0 if ok else 1
