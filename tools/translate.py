"""tessel-translate: move between Tessel IR and outside formats (mlir-translate for Tessel).

Examples:
  tessel-translate --import-onnx model.onnx -o model.mlir       # weights -> model.weights.npz
  tessel-translate program.mlir --target NAME -o out            # IR -> an artefact (see --list-targets)
  tessel-translate --import-onnx model.onnx --input-shape x=1,3,224,224 -o model.mlir
  tessel-translate --import-onnx reshape.onnx --bind shape=shape.npy -o reshape.mlir
  tessel-translate --list-onnx-ops                               # what the importer accepts

Large initializers are written to an .npz beside the output (named by the module's
`tg.weights` attribute); small ones are inlined as tg.constant.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from tessel.frontends.onnx import import_model, load_model, static_inputs, supported_ops
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import print_module, verify
from tessel.ir.weights import save_weights
from tessel.tools.cli import (
    check_output_path,
    guarded,
    parse_assignments,
    parse_bindings,
    parse_shapes,
    write_atomically,
)

# target name -> "module:function"; the function takes (input path, {option: value}) and
# returns the artefact as text or bytes.
TRANSLATIONS: dict[str, str] = {
    "cpu": "tessel.pipelines.tensor:translate_for_cpu",
    "gpu": "tessel.pipelines.tensor:translate_for_gpu",
    "msccl-xml": "tessel.targets.nccl.translate:msccl_xml",
    "seal-cpp": "tessel.pipelines.he:translate_seal_cpp",
    "vta": "tessel.pipelines.vta:translate",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tessel-translate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("input", nargs="?", help="an IR file to translate with --target")
    p.add_argument("--target", metavar="NAME", help="the artefact to produce from INPUT (see --list-targets)")
    p.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE", help="an option of the target")
    p.add_argument("--list-targets", action="store_true", help="print the translation targets")
    p.add_argument("--import-onnx", metavar="MODEL", help="import an ONNX model as tg IR")
    p.add_argument("-o", "--output", metavar="FILE", help="output file (default: stdout)")
    p.add_argument("--weights-file", metavar="NPZ", help="where large weights go (default: OUTPUT.weights.npz)")
    p.add_argument(
        "--bind",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="fix a graph input to a value (needed for shape-like inputs)",
    )
    p.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="NAME=D0,D1,...",
        help="static shape for an input with symbolic dimensions",
    )
    p.add_argument("--list-onnx-ops", action="store_true", help="print the ONNX operators the importer accepts")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    return p


def _weights_path(args: argparse.Namespace) -> str:
    if args.weights_file:
        return args.weights_file
    base = args.output if args.output else os.path.basename(args.import_onnx)
    stem = base[: -len(".mlir")] if base.endswith(".mlir") else os.path.splitext(base)[0]
    return stem + ".weights.npz"


def _import_onnx(args: argparse.Namespace) -> int:
    model = load_model(args.import_onnx)
    bind = parse_bindings(args.bind)
    missing = [name for name in static_inputs(model) if name not in bind]
    if missing:
        raise TesselError(
            f"{args.import_onnx}: input{'s' if len(missing) > 1 else ''} {', '.join(repr(m) for m in missing)} "
            f"feed{'' if len(missing) > 1 else 's'} shape-like operands and must be bound: "
            + " ".join(f"--bind {m}=FILE.npy" for m in missing)
        )
    weights_path = _weights_path(args)
    check_output_path(args.output)
    check_output_path(weights_path, "--weights-file")
    ir_dir = os.path.dirname(os.path.abspath(args.output)) if args.output else os.getcwd()
    relative = os.path.relpath(os.path.abspath(weights_path), ir_dir)
    result = import_model(
        model, source=args.import_onnx, bind=bind, input_shapes=parse_shapes(args.input_shape), weights_file=relative
    )
    verify(result.module)
    text = print_module(result.module)
    if result.weights:
        save_weights(weights_path, result.weights)
    if args.output:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _translate(args: argparse.Namespace) -> int:
    if args.target not in TRANSLATIONS:
        known = ", ".join(sorted(TRANSLATIONS)) or "none yet"
        raise TesselError(f"unknown translation target '{args.target}' (targets: {known})")
    check_output_path(args.output)
    module_name, function = TRANSLATIONS[args.target].split(":")
    artefact = getattr(importlib.import_module(module_name), function)(args.input, parse_assignments(args.opt, "--opt"))
    if args.output:
        write_atomically(args.output, artefact)
    elif isinstance(artefact, bytes):
        sys.stdout.buffer.write(artefact)
    else:
        sys.stdout.write(artefact)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)

    def body() -> int:
        if args.list_onnx_ops:
            print("\n".join(supported_ops()))
            return 0
        if args.list_targets:
            print("\n".join(sorted(TRANSLATIONS)))
            return 0
        if args.import_onnx:
            if args.input or args.target:
                raise TesselError("--import-onnx takes no INPUT or --target")
            return _import_onnx(args)
        if args.input and args.target:
            return _translate(args)
        raise TesselError("nothing to translate: give --import-onnx MODEL, or INPUT --target NAME (see --help)")

    return guarded("tessel-translate", body, args.debug)


if __name__ == "__main__":
    sys.exit(main())
