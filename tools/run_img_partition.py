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

from xdsl.dialects import builtin

from tessel.ir.diagnostics import TesselError
from tessel.ir.source import print_module, verify
from tessel.pipelines.img import partition


def run(args: argparse.Namespace, module: builtin.ModuleOp) -> int:
    try:
        reports = partition(module, getattr(args, "platform_model", None), getattr(args, "platform", None) or "accel",
                            getattr(args, "link", None) or "backscatter")  # fmt: skip
    except TesselError as err:
        if err.message.startswith("--partition needs"):
            raise TesselError(f"{args.model}: {err.message}") from None
        raise
    print("\n".join(reports))
    verify(module)
    if getattr(args, "dump_ir", None):
        Path(args.dump_ir).write_text(print_module(module))
    return 0
