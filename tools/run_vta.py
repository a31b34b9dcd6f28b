"""`--target vta`: int8 layers on the simulated VTA accelerator, the rest on the CPU.

The module (tg IR) goes through tg-to-vta (int8 conv/matmul chains become vta.conv2d) and
vta-codegen (each becomes a hazard-checked instruction stream); the functional simulator runs
the streams and the cycle model times them. Layers VTA cannot run stay on the CPU target, and
the run says which and why.

Examples:
  tessel-run layer.mlir --target vta --check                   # bit-exact against the reference
  tessel-run layer.mlir --target vta --vthreads 1              # no latency hiding
  tessel-run layer.mlir --target vta --config pynq200 --dump-ir out.mlir
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects import vta
from tessel.dialects.context import make_context
from tessel.dialects.vta.config import ConfigError, preset
from tessel.dialects.vta.program import Program
from tessel.ir.diagnostics import TesselError
from tessel.ir.signature import inputs, outputs, random_inputs
from tessel.ir.source import print_module, read_module, verify
from tessel.ir.weights import WeightStore
from tessel.targets.reference.interpreter import entry_function, run
from tessel.tools.cli import check_output_path, load_npz, save_npz_atomically, write_atomically
from tessel.tools.oracles import compare


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="a .mlir module (tg) with int8 layers")
    p.add_argument("--inputs", metavar="NPZ", help="input arrays by name (default: random, see --seed)")
    p.add_argument("--seed", type=int, default=0, help="seed for random inputs (default: 0)")
    p.add_argument("-o", "--output", metavar="NPZ", help="write the outputs by name")
    p.add_argument("--check", action="store_true", help="compare bit for bit with the reference semantics")
    p.add_argument("--vthreads", type=int, default=2, choices=(1, 2, 4), help="virtual threads (default: 2)")
    p.add_argument("--config", default="pynq", help="VTA preset: pynq (100 MHz), pynq200, ultra96 (default: pynq)")
    p.add_argument("--threads", type=int, default=2, help="CPU threads for the layers VTA does not run")
    p.add_argument("--dump-ir", metavar="FILE", help="write the module after vta-codegen")


def _full_range(ports, seed: int) -> dict[str, np.ndarray]:
    """int8 inputs over the whole range (random_inputs keeps integers small)."""
    rng = np.random.default_rng(seed)
    given = random_inputs(ports, seed)
    for p in ports:
        if p.dtype == np.int8:
            given[p.name] = rng.integers(-128, 128, p.shape, dtype=np.int8)
    return given


def run_command(args: argparse.Namespace) -> int:
    from tessel.pipelines.vta import compile_module, execute

    check_output_path(args.output)
    check_output_path(args.dump_ir, "--dump-ir")
    try:
        cfg = preset(args.config)
    except ConfigError as e:
        raise TesselError(str(e)) from None
    module = read_module(make_context(), args.model)
    weights = WeightStore.for_module(module, args.model)
    reference_module = module.clone() if args.check else None
    fn = entry_function(module)
    in_ports, out_ports = inputs(fn), outputs(fn)
    given = load_npz(args.inputs, "inputs") if args.inputs else _full_range(in_ports, args.seed)
    missing = [p.name for p in in_ports if p.name not in given]
    if missing:
        raise TesselError(f"{args.inputs}: input '{missing[0]}' is missing")
    feed = [np.asarray(given[p.name]) for p in in_ports]

    start = time.perf_counter()
    compile_module(module, args.vthreads, args.config)
    verify(module)
    compile_s = time.perf_counter() - start
    if args.dump_ir:
        write_atomically(args.dump_ir, print_module(module), "--dump-ir")
    fn = entry_function(module)
    start = time.perf_counter()
    result = execute(module, fn, feed, weights, args.threads)
    elapsed = time.perf_counter() - start
    print(f"compiled {len(result.layers)} VTA layer(s) in {compile_s:.2f} s ({cfg.describe()})")
    for note in result.host_notes:
        print(f"  note: {note}")
    print(
        f"ran @{fn.sym_name.data}: {len(result.layers)} layer(s) on the simulated VTA, "
        f"{result.host_segments} segment(s) on the CPU, in {elapsed:.2f} s of simulation"
    )
    print(f"  {'layer':<16} {'cycles':>10} {'util':>6} {'GOPS':>7} {'insns':>6} {'DRAM KiB':>9}  hazards  schedule")
    hazards = 0
    for s in result.layers:
        c = s.cycles
        hazards += len(s.hazards.hazards) + (s.hazards.deadlock is not None) + bool(s.hazards.leftover)
        sched = s.notes.split(": ", 1)[-1]
        print(
            f"  {s.name:<16} {c.cycles:>10} {c.utilization:>6.1%} {c.gops(cfg.clock_mhz):>7.1f} {s.insns:>6} "
            f"{c.dram_bytes / 1024:>9.1f}  {len(s.hazards.hazards):>7}  {sched}"
        )
        moved = ", ".join(f"{k} {v / 1024:.1f}" for k, v in sorted(c.bytes_loaded.items()))
        print(
            f"    DRAM KiB loaded: {moved}; stored: out {c.bytes_stored / 1024:.1f}; GEMM micro-ops {c.uops}; "
            f"busy cycles: " + ", ".join(f"{m} {b}" for m, b in c.module_busy.items())
        )
        if not s.hazards.ok:
            for line in s.hazards.lines(_program(module, s.name), 5):
                print(f"    {line}")
    if result.layers:
        total = sum(s.cycles.cycles for s in result.layers)
        print(f"  total {total} cycles = {total / (cfg.clock_mhz * 1e3):.3f} ms at {cfg.clock_mhz:g} MHz")
    if result.host_segments:
        print(
            f"  the {result.host_segments} CPU segment(s): {result.host_ms:.3f} ms on this machine ({args.threads} threads)"
        )
    named = {p.name: r for p, r in zip(out_ports, result.outputs)}
    for name, value in named.items():
        print(f"  {name}: {value.dtype}{list(value.shape)}  min {value.min()}  max {value.max()}")
    if args.output:
        save_npz_atomically(args.output, named)
    ok = hazards == 0
    if hazards:
        print(f"hazard checker: {hazards} problem(s)")
    if reference_module is not None:  # --check
        expected = dict(zip((p.name for p in out_ports), run(reference_module, feed, weights)))
        report = compare(named, expected, 0.0, 0.0)
        print(f"check against the reference semantics: {report.summary()}")
        ok &= report.ok
    return 0 if ok else 1


def _program(module: ModuleOp, name: str) -> Program:
    return next(o for o in module.ops if isinstance(o, vta.ProgramOp) and o.sym_name.data == name).program()
