"""`tessel-run camera.mlir --target cpu --partition`: where the pipeline should be cut.

Prints every cut of each camera pipeline (functions with an img.source) with the node's
energy per frame, its compute and link power and the bit rate it sends, marks the chosen
one, and with `--dump-ir` writes the partitioned module (img.place on every op, img.transmit
on the crossing values). `--platform`, `--link` and `--platform-model` choose the node, the
link and the constants file (examples/img/camera/platforms.json by default).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from xdsl.dialects import builtin, func

from tessel.dialects import img
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import print_module, verify
from tessel.passes.img.costs import load_model
from tessel.passes.img.partition import apply_cut, choose, options, report

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "examples" / "img" / "camera" / "platforms.json"


def run(args: argparse.Namespace, module: builtin.ModuleOp) -> int:
    model = load_model(getattr(args, "platform_model", None) or DEFAULT_MODEL)
    platform = model.platform(getattr(args, "platform", None) or "accel")
    link = model.link(getattr(args, "link", None) or "backscatter")
    cameras = [f for f in module.ops if isinstance(f, func.FuncOp) and any(isinstance(o, img.SourceOp) for o in f.body.block.ops)]
    if not cameras:
        raise TesselError(f"{args.model}: --partition needs a camera pipeline (a function with an img.source)")
    for fn in cameras:
        opts = options(fn, platform, link)
        chosen = choose(opts, platform, link)
        print(f"@{fn.sym_name.data}: " + report(opts, chosen, platform, link))
        apply_cut(fn, chosen, link)
    verify(module)
    if getattr(args, "dump_ir", None):
        Path(args.dump_ir).write_text(print_module(module))
    return 0
