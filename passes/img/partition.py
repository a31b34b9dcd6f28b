"""img-partition: split a camera pipeline between the node and the cloud.

The node runs a prefix of the pipeline (in program order, which is a topological order) on
one platform and sends every value that crosses the cut over one link; the cloud's work is
free to the node. For cut k the node's power is

    P(k) = sum over node ops of  rate(op) x ops(op) x pJ/op   +   sum over crossing values of  rate(v) x bits(v) x nJ/bit

where rate is frames per second (a gate thins everything after it), and the cut is feasible
when the crossing bit rate fits the link and the node's op rate fits the platform. Energy per
captured frame is P / (frame rate x cameras). Pipelines are short chains, so all cuts are
enumerated (the IISWC'17 study's question: where should the data leave the camera?).

The pass marks every op `img.place = #img<place node | cloud>`, removes `img.transmit` ops the
pipeline had, and inserts one `img.transmit` (with the link's parameters) on each crossing
value. Options: `model` (a platform JSON), `platform`, `link`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import FloatAttr, StringAttr, f64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tessel.dialects import img
from tessel.dialects.img.attrs import Place, PlaceAttr
from tessel.ir.diagnostics import TesselError
from tessel.passes.img.analysis.costs import (
    DEFAULT_PLATFORMS,
    Link,
    Model,
    Platform,
    load_model,
    ops_per_frame,
    output_bits,
)
from tessel.passes.img.analysis.rates import rates


@dataclass(frozen=True)
class Option:
    cut: int  # ops on the node
    after: str  # the last node op, for reports
    compute_w: float
    link_w: float
    bits_per_s: float
    node_ops_per_s: float
    per_frame_uj: float  # node energy per captured frame (one camera)
    problem: str | None  # why it is infeasible

    @property
    def feasible(self) -> bool:
        return self.problem is None

    @property
    def power_w(self) -> float:
        return self.compute_w + self.link_w


def stages(fn: func.FuncOp) -> list[Operation]:
    """The ops a cut can separate: everything but sources, sinks and links."""
    return [
        o for o in fn.body.block.ops if not isinstance(o, img.SourceOp | img.SinkOp | img.TransmitOp | func.ReturnOp)
    ]


def label(op: Operation) -> str:
    name = op.results[0].name_hint if op.results and op.results[0].name_hint else None
    return f"%{name} ({op.name})" if name else op.name


def _skip_links(v: SSAValue) -> SSAValue:
    while isinstance(v.owner, img.TransmitOp):
        v = v.owner.input
    return v


def options(fn: func.FuncOp, platform: Platform, link: Link) -> list[Option]:
    found = rates(fn)
    order = stages(fn)
    sources = [o for o in fn.body.block.ops if isinstance(o, img.SourceOp)]
    captured = sum(found[s.results[0]].fps for s in sources) or 1.0
    consumers: dict[SSAValue, list[Operation]] = {}
    for o in fn.body.block.ops:
        for v in o.operands:
            consumers.setdefault(_skip_links(v), []).append(o)
    out = []
    for k in range(len(order) + 1):
        node = set(order[:k])
        node_values = [s.results[0] for s in sources] + [r for o in order[:k] for r in o.results]
        cloud_ops = [o for o in fn.body.block.ops if o not in node and not isinstance(o, img.SourceOp | img.TransmitOp)]
        crossing = [v for v in node_values if any(c in cloud_ops for c in consumers.get(v, []))]
        ops_s = sum(max((found[v].fps for v in o.operands), default=0.0) * ops_per_frame(o) for o in order[:k])
        bits_s = sum(found[v].fps * output_bits(v.owner) if isinstance(v.owner, Operation) else 0.0 for v in crossing)
        compute_w = ops_s * platform.pj_per_op * 1e-12
        link_w = bits_s * link.nj_per_bit * 1e-9
        problem = None
        if bits_s > link.gbps * 1e9:
            problem = f"needs {bits_s / 1e9:.3g} Gb/s, {link.name} carries {link.gbps:g}"
        elif ops_s > platform.capacity:
            problem = f"needs {ops_s / 1e9:.3g} Gop/s, {platform.name} does {platform.capacity / 1e9:g}"
        out.append(Option(k, label(order[k - 1]) if k else "(raw frames)", compute_w, link_w, bits_s, ops_s,
                          (compute_w + link_w) / captured * 1e6, problem))  # fmt: skip
    return out


def choose(opts: list[Option], platform: Platform, link: Link) -> Option:
    feasible = [o for o in opts if o.feasible]
    if not feasible:
        best = min(opts, key=lambda o: o.bits_per_s)
        raise TesselError(
            f"no cut fits {platform.name} + {link.name}: even the smallest output ({best.after}) {best.problem}"
        )
    return min(feasible, key=lambda o: (o.per_frame_uj, o.cut))


def report(opts: list[Option], chosen: Option, platform: Platform, link: Link) -> str:
    lines = [f"partition on {platform.name} ({platform.pj_per_op:g} pJ/op, {platform.capacity / 1e9:g} Gop/s) "
             f"+ {link.name} ({link.gbps:g} Gb/s, {link.nj_per_bit:g} nJ/bit):",
             f"  {'cut after':<34} {'uJ/frame':>10} {'compute mW':>11} {'link mW':>10} {'Mb/s':>10}  feasible"]  # fmt: skip
    for o in opts:
        mark = "<- chosen" if o is chosen else ""
        lines.append(f"  {o.after:<34} {o.per_frame_uj:>10.3f} {o.compute_w * 1e3:>11.3f} {o.link_w * 1e3:>10.3f} "
                     f"{o.bits_per_s / 1e6:>10.3f}  {'yes' if o.feasible else 'no: ' + str(o.problem)} {mark}".rstrip())  # fmt: skip
    return "\n".join(lines)


def apply_cut(fn: func.FuncOp, chosen: Option, link: Link) -> None:
    """Place ops and put one img.transmit on each value that crosses the cut."""
    for t in [o for o in fn.body.block.ops if isinstance(o, img.TransmitOp)]:
        t.results[0].replace_all_uses_with(t.input)
        Rewriter.erase_op(t)
    order = stages(fn)
    node = set(order[: chosen.cut])
    for o in fn.body.block.ops:
        if isinstance(o, func.ReturnOp):
            continue
        o.attributes[img.PLACE_ATTR] = PlaceAttr(
            Place.NODE if o in node or isinstance(o, img.SourceOp) else Place.CLOUD
        )
    for o in list(fn.body.block.ops):
        if not (o in node or isinstance(o, img.SourceOp)):
            continue
        for r in o.results:
            cloud_uses = [u for u in r.uses if u.operation not in node and not isinstance(u.operation, img.SourceOp)]
            if not cloud_uses:
                continue
            t = img.TransmitOp.create(
                operands=[r], result_types=[r.type],
                properties={"link": StringAttr(link.name), "gbps": FloatAttr(link.gbps, f64), "nj_per_bit": FloatAttr(link.nj_per_bit, f64)},
                attributes={img.PLACE_ATTR: PlaceAttr(Place.NODE)})  # fmt: skip
            Rewriter.insert_op(t, InsertPoint.after(o))
            for u in cloud_uses:
                u.operation.operands[u.index] = t.results[0]


@dataclass(frozen=True)
class ImgPartition(ModulePass):
    name = "img-partition"

    model: str = str(DEFAULT_PLATFORMS)
    platform: str = "accel"
    link: str = "backscatter"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        m: Model = load_model(self.model)
        platform, link = m.platform(self.platform), m.link(self.link)
        for fn in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            if not any(isinstance(o, img.SourceOp) for o in fn.body.block.ops):
                continue
            opts = options(fn, platform, link)
            apply_cut(fn, choose(opts, platform, link), link)
