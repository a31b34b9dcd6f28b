"""The IISWC'17 camera study from the model: where should the data leave the camera?

    python -m tessel.bench.camera [--model examples/img/camera/platforms.json] [--plot docs/camera_study.png]

For each case study (examples/img/camera/pipelines.py) and each node platform + link, every
cut of the pipeline is costed by img-partition's model (passes/img/partition.py) and the
cheapest feasible one is chosen; then each data-reduction stage is removed in turn and the
best cut found again (the ablation). All constants come from the platform JSON, each with its
source or assumption. Checks the paper's conclusion in the model:

* face authentication: removing the earliest data reduction (the motion gate) costs more node
  energy per frame than removing any later one (face gate, ROI);
* the chosen cut moves as the platform and the link change;
* 3D-360 rig: only cuts after the ODS downsample or the encoder fit a 1 or 10 GbE uplink.

Ends with `RESULT camera earliest_reduction_costs_most=<bool> cut_moves=<bool>
rig_needs_reduction_on_10gbe=<bool> motion_gate_saving=<x>`.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
from pathlib import Path

from xdsl.dialects import func

from tessel.dialects.context import make_context
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import parse_module
from tessel.passes.img.analysis.costs import Model, load_model
from tessel.passes.img.partition import Option, choose, options

PIPELINES = Path(__file__).resolve().parents[1] / "examples" / "img" / "camera" / "pipelines.py"


def pipelines_module():  # noqa: ANN201
    """examples/img/camera/pipelines.py as a module (examples are not a package)."""
    spec = importlib.util.spec_from_file_location("camera_pipelines", PIPELINES)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def load_pipelines():  # noqa: ANN201
    """examples/img/camera/pipelines.py's `build(name, without)`."""
    return pipelines_module().build


FACE = (
    "face_auth",
    ["mcu+backscatter", "accel+backscatter", "mcu+wifi", "accel+ble"],
    ["motion_gate", "face_gate", "roi"],
)
RIG = ("rig360", ["fpga+1gbe", "fpga+10gbe", "fpga+40gbe", "cpu+10gbe", "gpu+40gbe"], ["downsample", "encode"])


def best(model: Model, text: str, config: str) -> tuple[Option | None, list[Option]]:
    plat, link = config.split("+")
    fn = next(o for o in parse_module(make_context(), text, "pipeline.mlir").ops if isinstance(o, func.FuncOp))
    opts = options(fn, model.platform(plat), model.link(link))
    try:
        return choose(opts, model.platform(plat), model.link(link)), opts
    except TesselError:
        return None, opts


def study(model: Model, build, name: str, configs: list[str], reductions: list[str]) -> dict:  # noqa: ANN001
    print(f"\n## {name}\n")
    print(
        f"{'platform + link':<20} {'chosen cut':<28} {'uJ/frame':>11} {'bit/s':>10}   "
        + "   ".join(f"without {r:<11}" for r in reductions)
    )
    rows = {}
    for config in configs:
        chosen, _ = best(model, build(name), config)
        ablated = {r: best(model, build(name, (r,)), config)[0] for r in reductions}
        rows[config] = (chosen, ablated)
        base = chosen.per_frame_uj if chosen else math.inf
        cells = []
        for r in reductions:
            a = ablated[r]
            cells.append(
                f"{'infeasible':>19}" if a is None else f"{a.per_frame_uj / base:>8.2f}x ({a.after.split(' ')[0]:<8})"
            )
        what = chosen.after if chosen else "none feasible"
        print(
            f"{config:<20} {what:<28} {base:>11.3f} {chosen.bits_per_s if chosen else math.nan:>10.3g}   "
            + "   ".join(cells)
        )
    return rows


def plot(face: dict, rig: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, (rows, reductions, title) in zip(axes, ((face, FACE[2], "face authentication (node energy per frame)"),
                                                   (rig, RIG[2], "3D-360 rig (node energy per camera-frame)"))):  # fmt: skip
        configs = list(rows)
        width = 0.8 / (len(reductions) + 1)
        for i, variant in enumerate(["all stages", *[f"without {r}" for r in reductions]]):
            ys = []
            for c in configs:
                chosen, ablated = rows[c]
                o = chosen if i == 0 else ablated[reductions[i - 1]]
                ys.append(o.per_frame_uj if o is not None else float("nan"))
            ax.bar([x + i * width for x in range(len(configs))], ys, width, label=variant)
        ax.set_xticks([x + width * len(reductions) / 2 for x in range(len(configs))], configs, rotation=20, fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("uJ (best feasible cut; missing = none fits the link)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="examples/img/camera/platforms.json")
    p.add_argument("--plot", default="build/bench/camera_study.png")
    args = p.parse_args()
    model = load_model(args.model)
    build = load_pipelines()
    print(f"# platform model: {args.model}")
    for n, pl in model.platforms.items():
        print(f"#   {n}: {pl.pj_per_op:g} pJ/op, {pl.capacity / 1e9:g} Gop/s — {pl.source}")
    for n, lk in model.links.items():
        print(f"#   {n}: {lk.gbps:g} Gb/s, {lk.nj_per_bit:g} nJ/bit — {lk.source}")
    face = study(model, build, *FACE)
    rig = study(model, build, *RIG)
    # the paper's conclusion, checked in the model
    earliest = True
    saving = math.inf
    for chosen, ablated in face.values():
        costs = {r: (a.per_frame_uj if a else math.inf) for r, a in ablated.items()}
        earliest &= costs["motion_gate"] > max(costs["face_gate"], costs["roi"])
        saving = min(saving, costs["motion_gate"] / chosen.per_frame_uj)
    cuts = {c: ch.after for c, (ch, _) in {**face, **rig}.items() if ch is not None}
    moves = len(set(list(cuts.values())[: len(FACE[1])])) > 1 and len(set(list(cuts.values())[len(FACE[1]) :])) > 1
    rig10 = True
    for config in ("fpga+1gbe", "fpga+10gbe"):
        chosen, opts = best(model, build("rig360"), config)
        late = {"%ods2", "%video"}
        feasible = {o.after.split(" ")[0] for o in opts if o.feasible}
        rig10 &= bool(feasible) and feasible <= late
    print(
        f"\nremoving the motion gate costs {saving:.2f}x or more; it is the costliest removal on every face-auth configuration: {earliest}"
    )
    print(f"chosen cuts: {cuts}")
    plot(face, rig, args.plot)
    print(f"plot written to {args.plot}")
    print(f"RESULT camera earliest_reduction_costs_most={str(earliest).lower()} cut_moves={str(moves).lower()} "
          f"rig_needs_reduction_on_10gbe={str(rig10).lower()} motion_gate_saving={saving:.2f}")  # fmt: skip
    return 0 if earliest and moves and rig10 else 1


if __name__ == "__main__":
    raise SystemExit(main())
