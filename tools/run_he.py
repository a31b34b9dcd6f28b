"""tessel-run for homomorphic-encryption kernels (`hev` programs) on Microsoft SEAL.

Examples:
  tessel-run kernel.mlir --target seal                    # every program in the module
  tessel-run kernel.mlir --target seal --entry box_blur_synth --reps 11
  tessel-run kernel.mlir --target seal --params default   # N=8192 with SEAL's default q
  tessel-run kernel.mlir --target seal --inputs in.npz -o out.npz

Each program (a function with `hev.implements = @spec`) gets the same inputs, random
(--seed; 0/1 for the bits domain, 0 in the zero padding of `hev.padded`) or from --inputs
(by argument name; checked against those declarations). Its secret
inputs are encrypted, the server-side operations run on SEAL (timed: median of --reps),
the result is decrypted and compared with the spec's reference semantics at every output
slot that matters. Parameters: `auto` picks the cheapest measured set that leaves enough
noise budget (see `tessel.passes.he.model.choice`), `default` is the paper's fixed
N=8192, or name one (`--list-params`). Exit status 1 if any check fails.
"""

from __future__ import annotations

import argparse

import numpy as np

from tessel.api.he import arrange_inputs
from tessel.dialects.context import make_context
from tessel.dialects.hev import kernel
from tessel.dialects.hev.metrics import depth, op_counts
from tessel.dialects.hev.params import CANDIDATES, DEFAULT
from tessel.dialects.hev.reference import run_kernel
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import read_module
from tessel.pipelines import he
from tessel.tools.cli import check_output_path, load_npz, save_npz_atomically


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", nargs="?", help="a .mlir module with hev specs and programs")
    p.add_argument("--entry", help="run only this program (default: every program in the module)")
    p.add_argument("--inputs", metavar="NPZ", help="input vectors by argument name (default: random, see --seed)")
    p.add_argument("--seed", type=int, default=0, help="seed for random inputs (default: 0)")
    p.add_argument("--params", default="auto", help="auto (default), default, or a parameter set name")
    p.add_argument(
        "--keys",
        choices=("exact", "pow2"),
        default="exact",
        help="Galois keys: one per rotation used (exact), or powers of two composed at run time",
    )
    p.add_argument("--reps", type=int, default=5, help="timed evaluations per program (median; default 5)")
    p.add_argument("--costs", metavar="JSON", help="cost table for --params auto (default: the shipped one)")
    p.add_argument("--list-params", action="store_true", help="print the parameter sets and exit")
    p.add_argument("-o", "--output", metavar="NPZ", help="write each program's decrypted output by program name")


def _inputs(spec_fn, iface: kernel.Interface, args: argparse.Namespace) -> list[np.ndarray]:
    if args.inputs:
        return arrange_inputs(iface, load_npz(args.inputs, "inputs"), args.inputs)
    return iface.random_inputs(np.random.default_rng(args.seed))


def _describe_counts(fn) -> str:
    counts = op_counts(fn)
    parts = [f"{v} {k}" for k, v in counts.items() if v]
    return ", ".join(parts) or "no operations"


def run_command(args: argparse.Namespace) -> int:
    if args.list_params:
        for p in CANDIDATES:
            print(f"{p.name:14} {p.describe()}" + ("  (default)" if p is DEFAULT else ""))
        return 0
    if not args.model:
        raise TesselError("give a .mlir module with hev programs (or --list-params)")
    if args.reps < 1:
        raise TesselError("--reps must be at least 1")
    check_output_path(args.output)
    module = read_module(make_context(), args.model)
    programs = kernel.programs(module)
    if args.entry:
        fn = kernel.lookup(module, args.entry)
        if fn is None:
            have = ", ".join("@" + f.sym_name.data for f in kernel.functions(module)) or "none"
            raise TesselError(f"no function @{args.entry} in {args.model} (functions: {have})")
        if fn not in programs:
            raise TesselError(
                f"@{args.entry} is not a program (it has no hev.implements); run he-synthesize to make one from a spec"
            )
        programs = [fn]
    if not programs:
        specs = kernel.specs(module)
        hint = f"; synthesize one: tessel-opt {args.model} -p he-synthesize" if specs else ""
        raise TesselError(f"{args.model} has no hev program (a function with hev.implements){hint}")
    inputs_by_spec: dict[str, list[np.ndarray]] = {}
    outputs: dict[str, np.ndarray] = {}
    ok = True
    for fn in programs:
        spec_fn = he.spec_of(module, fn)
        iface = kernel.interface(spec_fn)
        if iface.name not in inputs_by_spec:
            inputs_by_spec[iface.name] = _inputs(spec_fn, iface, args)
        inputs = inputs_by_spec[iface.name]
        params, how = he.parameters_for(fn, args.params, args.costs or "")
        result = he.run(fn, inputs, params, reps=args.reps, keys=args.keys)
        want = run_kernel(module, spec_fn, inputs, iface.plain_modulus)
        slots = list(iface.output_slots) if iface.output_slots is not None else list(range(iface.slots))
        bad = [s for s in slots if result.output[s] != want[s]]
        outputs[fn.sym_name.data] = result.output
        steps = f"Galois keys for steps {result.key_steps}" if result.key_steps else "no Galois keys"
        print(
            f"@{fn.sym_name.data}: {params.describe()}, t={iface.plain_modulus} ({how}); {_describe_counts(fn)}; depth {depth(fn)}"
        )
        print(
            f"  latency {result.median_ms:.2f} ms (median of {args.reps}), noise budget left {result.noise_budget} bits, {steps}"
        )
        if bad:
            ok = False
            s = bad[0]
            print(
                f"  check against @{iface.name}: FAILED at {len(bad)} of {len(slots)} slots (slot {s}: got {result.output[s]}, expected {want[s]})"
            )
        else:
            print(f"  check against @{iface.name}: OK ({len(slots)} slots)")
    if args.output:
        save_npz_atomically(args.output, outputs)
    return 0 if ok else 1
