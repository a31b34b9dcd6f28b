"""coll-synthesize: add a `coll.algorithm` for every `coll.collective` in the module.

    tessel-opt problem.mlir -p 'coll-synthesize{time-limit=20}'

The collective names its topology (`on @ndv2x2`); the sketch is the pass option `sketch`
(a coll.sketch symbol), else the module's only coll.sketch, else none, and then candidate
sketches are searched and ranked by the simulator (synthesis.py). The algorithm is inserted
after its collective as `@<collective>_alg`, with the simulated time and the chosen sketch as
attributes; `coll-verify` proves it correct.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, ModuleOp, StringAttr, f64
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter, InsertPoint

from tessel.dialects.coll import AlgorithmOp, CollectiveOp, SketchOp, TopologyOp, algorithm_op
from tessel.dialects.coll.topologies import check_sketch
from tessel.ir.diagnostics import TesselError, op_location

from .synthesis import Options, synthesize


@dataclass(frozen=True)
class CollSynthesize(ModulePass):
    name = "coll-synthesize"

    time_limit: int = 20
    sketch: str = ""
    exact: bool = True
    workers: int = 2
    seed: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        topologies = {t.sym_name.data: t for t in op.walk() if isinstance(t, TopologyOp)}
        sketches = {s.sym_name.data: s for s in op.walk() if isinstance(s, SketchOp)}
        existing = {a.sym_name.data for a in op.walk() if isinstance(a, AlgorithmOp)}
        if self.sketch and self.sketch not in sketches:
            raise TesselError(f"coll-synthesize: no coll.sketch @{self.sketch} in the module (sketches: {', '.join(sorted(sketches)) or 'none'})")
        for coll_op in [c for c in op.walk() if isinstance(c, CollectiveOp)]:
            where = op_location(coll_op)
            topo_name = coll_op.topology.root_reference.data
            if topo_name not in topologies:
                raise TesselError(f"'coll.collective' op refers to @{topo_name}, which is not a coll.topology in the module", where)
            name = f"{coll_op.sym_name.data}_alg"
            if name in existing:
                continue
            topo = topologies[topo_name].topology()
            sk_op = sketches.get(self.sketch) if self.sketch else (next(iter(sketches.values())) if len(sketches) == 1 else None)
            sketch = sk_op.sketch() if sk_op is not None else None
            coll = coll_op.collective()
            if coll.ranks != topo.gpus:
                raise TesselError(f"'coll.collective' op has {coll.ranks} ranks, topology @{topo_name} has {topo.gpus} GPUs", where)
            if sketch is not None:
                check_sketch(sketch, topo, f"coll.sketch @{sketch.name}")
                if coll_op.chunkup.value.data != 1:
                    sketch.chunkup = coll_op.chunkup.value.data
            try:
                result = synthesize(topo, coll.kind, coll_op.size.value.data, sketch,
                                    Options(time_limit=self.time_limit, exact=None if self.exact else False,
                                            workers=self.workers, seed=self.seed),
                                    name=name, root=coll.root)
            except TesselError as err:
                raise TesselError(err.message, err.location or where) from None
            alg = algorithm_op(result.algorithm)
            alg.attributes["simulated_us"] = FloatAttr(round(result.time, 4), f64)
            alg.attributes["sketch"] = StringAttr(result.sketch.describe())
            Rewriter.insert_op(alg, InsertPoint.after(coll_op))
