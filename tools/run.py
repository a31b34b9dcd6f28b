"""tessel-run: compile and run a program on a target and check it against an oracle.

The target decides what a program is: `reference` (and the code-generating tensor targets)
run tg modules and ONNX models. `tessel-run --target NAME --help` shows a target's options.

Examples:
  tessel-run model.mlir --target reference --inputs in.npz -o out.npz
  tessel-run model.onnx --check                  # compare with onnx.reference and onnxruntime
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tessel.tools.cli import guarded

# target name -> module with add_arguments(parser) and run_command(args) -> exit code
RUNNERS: dict[str, str] = {
    "reference": "tessel.tools.run_tensor",
    "nccl": "tessel.tools.run_coll",
    "cpu": "tessel.tools.run_tensor",
    "gpu": "tessel.tools.run_tensor",
    "seal": "tessel.tools.run_he",
    "vta": "tessel.tools.run_vta",
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--target", default="reference")
    target = pre.parse_known_args(argv)[0].target
    if target not in RUNNERS:
        print(f"tessel-run: error: unknown target '{target}' (targets: {', '.join(sorted(RUNNERS))})", file=sys.stderr)
        return 1
    runner = importlib.import_module(RUNNERS[target])
    if target == "cpu":  # image pipelines (modules of img ops) have their own runner
        from tessel.tools.run_img import is_img_file

        if any(is_img_file(a) for a in argv if not a.startswith("-")):
            runner = importlib.import_module("tessel.tools.run_img")
    parser = argparse.ArgumentParser(
        prog="tessel-run",
        description=f"{__doc__}\nTarget '{target}': {runner.__doc__}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--target", choices=sorted(RUNNERS), default="reference", help="where to run (default: reference)"
    )
    runner.add_arguments(parser)
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    args = parser.parse_args(argv)
    return guarded("tessel-run", lambda: runner.run_command(args), args.debug)


if __name__ == "__main__":
    sys.exit(main())
