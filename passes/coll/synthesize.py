"""coll-synthesize: add a `coll.algorithm` for every `coll.collective` in the module.

    tessel-opt problem.mlir -p 'coll-synthesize{time-limit=20}'

The collective names its topology (`on @ndv2x2`); the sketch is the pass option `sketch`
(a coll.sketch symbol), else the module's only coll.sketch, else none, and then candidate
sketches are searched and ranked by the simulator (synth/driver.py). The algorithm is inserted
after its collective as `@<collective>_alg`, with the simulated time and the chosen sketch as
attributes; `coll-verify` proves it correct.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, ModuleOp, StringAttr, f64
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tessel.dialects.coll import AlgorithmOp, CollectiveOp, SketchOp, TopologyOp, algorithm_op
from tessel.dialects.coll.taccl import check_sketch
from tessel.ir.diagnostics import TesselError, op_location
from tessel.ir.results_cache import ResultsCache, cache_folder
from tessel.ir.source import parse_module, print_module, verify

from .synth.driver import Options, synthesize


@dataclass(frozen=True)
class CollSynthesize(ModulePass):
    name = "coll-synthesize"

    time_limit: int = 20
    sketch: str = ""
    exact: bool = True
    workers: int = 2
    seed: int = 0
    cache: str = ""  # a folder for finished algorithms (default $TESSEL_CACHE_DIR): a rerun skips them

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        topologies = {t.sym_name.data: t for t in op.walk() if isinstance(t, TopologyOp)}
        sketches = {s.sym_name.data: s for s in op.walk() if isinstance(s, SketchOp)}
        existing = {a.sym_name.data for a in op.walk() if isinstance(a, AlgorithmOp)}
        if self.time_limit <= 0 or self.workers < 1:
            raise TesselError(
                f"coll-synthesize: time-limit must be > 0 and workers >= 1, got time-limit={self.time_limit} workers={self.workers}"
            )
        if self.sketch and self.sketch not in sketches:
            raise TesselError(
                f"coll-synthesize: no coll.sketch @{self.sketch} in the module (sketches: {', '.join(sorted(sketches)) or 'none'})"
            )
        folder = cache_folder(self.cache)
        cache = ResultsCache(folder, "coll-synthesize") if folder is not None else None
        for coll_op in [c for c in op.walk() if isinstance(c, CollectiveOp)]:
            where = op_location(coll_op)
            topo_name = coll_op.topology.root_reference.data
            if topo_name not in topologies:
                raise TesselError(
                    f"'coll.collective' op refers to @{topo_name}, which is not a coll.topology in the module", where
                )
            name = f"{coll_op.sym_name.data}_alg"
            if name in existing:
                continue
            topo = topologies[topo_name].topology()
            sk_op = (
                sketches.get(self.sketch)
                if self.sketch
                else (next(iter(sketches.values())) if len(sketches) == 1 else None)
            )
            options = repr((self.time_limit, self.exact, self.workers, self.seed))
            key = ResultsCache.key(
                print_module(topologies[topo_name]),
                print_module(coll_op),
                print_module(sk_op) if sk_op else "",
                options,
            )
            cached = _from_cache(ctx, cache, key, name)
            if cached is not None:
                Rewriter.insert_op(cached, InsertPoint.after(coll_op))
                continue
            sketch = sk_op.sketch() if sk_op is not None else None
            coll = coll_op.collective()
            if coll.ranks != topo.gpus:
                raise TesselError(
                    f"'coll.collective' op has {coll.ranks} ranks, topology @{topo_name} has {topo.gpus} GPUs", where
                )
            if sketch is not None:
                check_sketch(sketch, topo, f"coll.sketch @{sketch.name}")
                if coll_op.chunkup.value.data != 1:
                    sketch.chunkup = coll_op.chunkup.value.data
            try:
                result = synthesize(
                    topo,
                    coll.kind,
                    coll_op.size.value.data,
                    sketch,
                    Options(
                        time_limit=self.time_limit,
                        exact=None if self.exact else False,
                        workers=self.workers,
                        seed=self.seed,
                    ),
                    name=name,
                    root=coll.root,
                )
            except TesselError as err:
                raise TesselError(err.message, err.location or where) from None
            alg = algorithm_op(result.algorithm)
            alg.attributes["simulated_us"] = FloatAttr(round(result.time, 4), f64)
            alg.attributes["sketch"] = StringAttr(result.sketch.describe())
            Rewriter.insert_op(alg, InsertPoint.after(coll_op))
            if cache is not None:
                cache.put(key, print_module(alg))


def _from_cache(ctx: Context, cache: ResultsCache | None, key: str, name: str) -> AlgorithmOp | None:
    """A finished algorithm from an earlier run (its verification is coll-verify's job, as
    for a fresh one); None, and the entry dropped, when it does not parse as one."""
    text = cache.get(key) if cache is not None else None
    if cache is None or text is None:
        return None
    try:
        alg = parse_module(ctx, text, str(cache.path(key))).body.block.first_op
        if alg is not None:
            verify(alg)
    except TesselError:
        alg = None
    if not isinstance(alg, AlgorithmOp) or alg.sym_name.data != name:
        cache.discard(key)
        return None
    alg.detach()
    return alg
