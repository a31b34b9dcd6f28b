"""tessel-run for tensor programs (tg modules and ONNX models): run, time, check.

Examples:
  tessel-run model.mlir --target reference --inputs in.npz -o out.npz
  tessel-run model.mlir --seed 3                      # random inputs, reproducible
  tessel-run model.onnx --check                       # compare with onnx.reference (and onnxruntime)
  tessel-run reshape.onnx --bind shape=shape.npy --check

Inputs and outputs are named by the model's input/output names (`tg.name`).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tessel.frontends.onnx import import_model, load_model
from tessel.ir.diagnostics import TesselError
from tessel.ir.signature import Port, inputs, outputs, random_inputs
from tessel.ir.source import make_context, read_module, verify
from tessel.ir.weights import WeightStore
from tessel.targets.reference.interpreter import entry_function, run
from tessel.tools.cli import check_output_path, load_npz, parse_bindings, parse_shapes
from tessel.tools.oracles import compare, onnx_oracles

def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="a .mlir module (tg) or an .onnx model")
    p.add_argument("--inputs", metavar="NPZ", help="input arrays by name (default: random, see --seed)")
    p.add_argument("--seed", type=int, default=0, help="seed for random inputs (default: 0)")
    p.add_argument("-o", "--output", metavar="NPZ", help="write the outputs by name")
    p.add_argument("--entry", help="function to run (default: main)")
    p.add_argument("--check", action="store_true",
                   help="compare with onnx.reference.ReferenceEvaluator and onnxruntime (ONNX input)")
    p.add_argument("--rtol", type=float, default=1e-4, help="relative tolerance of --check (default: 1e-4)")
    p.add_argument("--atol", type=float, default=1e-5, help="absolute tolerance of --check (default: 1e-5)")
    p.add_argument("--bind", action="append", default=[], metavar="NAME=FILE.npy", help="ONNX: fix an input to a value")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0,D1,...",
                   help="ONNX: static shape for an input with symbolic dimensions")


def _arrange_inputs(ports: list[Port], given: dict[str, np.ndarray], source: str) -> list[np.ndarray]:
    unknown = sorted(set(given) - {p.name for p in ports})
    if unknown:
        raise TesselError(f"{source}: no model input named {', '.join(unknown)} (inputs: {', '.join(p.name for p in ports)})")
    arrays = []
    for p in ports:
        if p.name not in given:
            raise TesselError(f"{source}: input '{p.name}' is missing")
        a = np.asarray(given[p.name])
        if a.shape != p.shape or a.dtype != p.dtype:
            raise TesselError(f"{source}: input '{p.name}' is {a.dtype}{list(a.shape)}, the model takes {p.dtype}{list(p.shape)}")
        arrays.append(a)
    return arrays


def _describe(name: str, a: np.ndarray) -> str:
    stats = ""
    if a.size and a.dtype.kind in "fiub":
        f = a.astype(np.float64)
        stats = f"  min {f.min():.6g}  max {f.max():.6g}  mean {f.mean():.6g}"
    return f"  {name}: {a.dtype}{list(a.shape)}{stats}"


def run_command(args: argparse.Namespace) -> int:
    is_onnx = args.model.endswith(".onnx")
    if args.check and not is_onnx:
        raise TesselError("--check compares with the ONNX oracles; give an .onnx model")
    check_output_path(args.output)
    if is_onnx:
        model = load_model(args.model)
        bind = parse_bindings(args.bind)
        result = import_model(model, source=args.model, bind=bind, input_shapes=parse_shapes(args.input_shape))
        module, weights = result.module, result.weights
        verify(module)
    else:
        if args.bind or args.input_shape:
            raise TesselError("--bind and --input-shape apply to ONNX models only")
        module = read_module(make_context(), args.model)
        weights = WeightStore.for_module(module, args.model)
    fn = entry_function(module, args.entry)
    in_ports, out_ports = inputs(fn), outputs(fn)
    given = load_npz(args.inputs, "inputs") if args.inputs else random_inputs(in_ports, args.seed)
    feed = _arrange_inputs(in_ports, given, args.inputs or args.model)

    start = time.perf_counter()
    results = run(module, feed, weights, args.entry)
    elapsed = time.perf_counter() - start
    named = {p.name: r for p, r in zip(out_ports, results)}
    print(f"ran @{fn.sym_name.data} on target {args.target} in {elapsed * 1e3:.1f} ms")
    for name, value in named.items():
        print(_describe(name, value))
    if args.output:
        np.savez(args.output, **named)

    if not args.check:
        return 0
    feed_by_name = {p.name: a for p, a in zip(in_ports, feed)} | parse_bindings(args.bind)
    ok = True
    for oracle, expected in onnx_oracles(model, feed_by_name):
        report = compare(named, expected, args.rtol, args.atol)
        print(f"check against {oracle}: {report.summary()}")
        ok &= report.ok
    return 0 if ok else 1
