"""tessel-run for tensor programs (tg modules and ONNX models): run, time, check.

Targets: `reference` runs the numpy reference semantics; `cpu` compiles through the whole
pipeline (graph passes, kernels, loops, LLVM) and runs native code on --threads threads.

Examples:
  tessel-run model.onnx --target cpu --check --time 20  # vs reference, onnx.reference and onnxruntime
  tessel-run model.onnx --target cpu --profile 20      # per-kernel times, slowest first
  tessel-run model.onnx --target cpu --records tune.jsonl --time 20  # tuned schedules (tessel-tune)
  tessel-run model.onnx --target cpu --dump-ir ir/      # the IR after every pass, and the LLVM IR
  tessel-run model.mlir --target reference --inputs in.npz -o out.npz
  tessel-run model.mlir --seed 3                      # random inputs, reproducible
  tessel-run model.onnx --check                       # compare with onnx.reference (and onnxruntime)
  tessel-run reshape.onnx --bind shape=shape.npy --check

Inputs and outputs are named by the model's input/output names (`tg.name`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping

import numpy as np

from tessel.dialects.context import make_context
from tessel.ir.diagnostics import TesselError
from tessel.ir.signature import Port, inputs, outputs, random_inputs
from tessel.ir.source import read_module, verify
from tessel.ir.weights import WeightStore
from tessel.pipelines.tensor import PRECISIONS, compile_for_cpu, compile_for_gpu
from tessel.targets.reference.interpreter import entry_function, run
from tessel.tools.cli import check_output_path, load_npz, parse_bindings, parse_shapes, save_npz_atomically
from tessel.tools.oracles import compare, onnx_oracles, onnxruntime_session

# --check of a bf16 build against the float32 references: bfloat16 operands (8 significant
# bits) through a transformer or a ResNet-18 differ by 0.3-1% of the output's scale
# (tessel.bench.cpu_bf16); deeper CNNs more (ResNet-50: 11%), which this tolerance reports
BF16_RTOL = 2e-2


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="a .mlir module (tg) or an .onnx model")
    p.add_argument("--inputs", metavar="NPZ", help="input arrays by name (default: random, see --seed)")
    p.add_argument("--seed", type=int, default=0, help="seed for random inputs (default: 0)")
    p.add_argument("-o", "--output", metavar="NPZ", help="write the outputs by name")
    p.add_argument("--entry", help="function to run (default: main)")
    p.add_argument(
        "--check",
        action="store_true",
        help="compare with the reference semantics (cpu target) and, for ONNX input, "
        "onnx.reference.ReferenceEvaluator and onnxruntime",
    )
    p.add_argument("--time", type=int, default=0, metavar="N", help="time N runs and report the median (cpu)")
    p.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="median time of every kernel launch over N runs, slowest first (cpu)",
    )
    p.add_argument(
        "--mcpu",
        metavar="NAME",
        help="cpu: compile for this CPU (x86-64-v3, skylake-avx512, znver4, ...; default: this one's); it must run here",
    )
    p.add_argument("--threads", type=int, default=2, help="threads for the cpu target (default: 2)")
    p.add_argument("--emulate", action="store_true", help="gpu: run the GPU kernels on this CPU (no GPU needed)")
    p.add_argument("--arch", metavar="sm_XX", help="gpu: the architecture to compile for (default: the device's)")
    p.add_argument("--dump-ir", metavar="DIR", help="write the IR after every pass into DIR (cpu)")
    p.add_argument("--records", metavar="JSONL", help="use the fastest schedules of a tessel-tune log (cpu)")
    p.add_argument(
        "--precision",
        choices=PRECISIONS,
        default="fp32",
        help="cpu: bf16 runs the dense layers on bfloat16 weights and activations with float32 sums "
        "(vdpbf16ps where the CPU has AVX512-BF16); results change in the 3rd significant digit",
    )
    p.add_argument(
        "--verify-each",
        action="store_true",
        help="verify the IR after every pass (names the pass that broke it; slower: verification runs in Python)",
    )
    p.add_argument(
        "--time-passes",
        action="store_true",
        help="print where the compile time went: import, each pass, IR verification, LLVM emit, parse, O3, codegen (cpu, gpu)",
    )
    p.add_argument(
        "--rtol",
        type=float,
        default=None,
        help="relative tolerance of --check (default: 1e-4; with --precision bf16, 2e-2: the references are float32)",
    )
    p.add_argument("--atol", type=float, default=1e-5, help="absolute tolerance of --check (default: 1e-5)")
    p.add_argument("--bind", action="append", default=[], metavar="NAME=FILE.npy", help="ONNX: fix an input to a value")
    p.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="NAME=D0,D1,...",
        help="ONNX: static shape for an input with symbolic dimensions",
    )


def _arrange_inputs(ports: list[Port], given: dict[str, np.ndarray], source: str) -> list[np.ndarray]:
    unknown = sorted(set(given) - {p.name for p in ports})
    if unknown:
        raise TesselError(
            f"{source}: no model input named {', '.join(unknown)} (inputs: {', '.join(p.name for p in ports)})"
        )
    arrays = []
    for p in ports:
        if p.name not in given:
            raise TesselError(f"{source}: input '{p.name}' is missing")
        a = np.asarray(given[p.name])
        if a.shape != p.shape or a.dtype != p.dtype:
            raise TesselError(
                f"{source}: input '{p.name}' is {a.dtype}{list(a.shape)}, the model takes {p.dtype}{list(p.shape)}"
            )
        arrays.append(a)
    return arrays


def median_times(executable, feed: list[np.ndarray], runs: int, session=None, feed_by_name=None) -> tuple[float, float]:
    """Median wall time in ms of Tessel and (when given) an onnxruntime session over `runs`
    runs each, in alternating blocks with a pause between them: both runtimes' worker
    threads spin for a while after a run and would take the CPUs from the other."""
    outs = executable.run(feed)
    ins = [np.asarray(x, order="C") for x in feed]
    engines = [lambda: executable.run_into(ins, outs)]
    if session is not None:
        engines.append(lambda: session.run(None, feed_by_name))
    samples: list[list[float]] = [[] for _ in engines]
    blocks = min(5, max(1, runs))
    for b in range(blocks):
        for fn, times in zip(engines, samples):
            time.sleep(0.05)
            fn()
            for _ in range(runs * (b + 1) // blocks - runs * b // blocks):
                start = time.perf_counter()
                fn()
                times.append(time.perf_counter() - start)
    ours = float(np.median(samples[0])) * 1e3
    return ours, float(np.median(samples[1])) * 1e3 if session is not None else float("nan")


def print_profile(rows: list[tuple[str, int, float]]) -> None:
    total = sum(t for _, _, t in rows) or 1.0
    print(f"profile: {len(rows)} launches, {total:.3f} ms in total (median per launch)")
    print(f"  {'ms':>9}  {'share':>6}  {'extent':>7}  kernel")
    for name, extent, t in sorted(rows, key=lambda r: -r[2]):
        print(f"  {t:9.3f}  {t / total:6.1%}  {extent:7d}  {name}")


def _describe(name: str, a: np.ndarray) -> str:
    stats = ""
    if a.size and a.dtype.kind in "fiub":
        f = a.astype(np.float64)
        stats = f"  min {f.min():.6g}  max {f.max():.6g}  mean {f.mean():.6g}"
    return f"  {name}: {a.dtype}{list(a.shape)}{stats}"


def run_command(args: argparse.Namespace) -> int:
    is_onnx = args.model.endswith(".onnx")
    compiled = args.target != "reference"
    if args.check and not is_onnx and not compiled:
        raise TesselError("--check compares the reference target with the ONNX oracles; give an .onnx model")
    if not compiled and (args.time or args.dump_ir or args.profile or args.records or args.time_passes):
        raise TesselError(
            "--time, --profile, --dump-ir, --records and --time-passes apply to compiled targets (--target cpu)"
        )
    for flag in ("threads", "time", "profile"):
        if getattr(args, flag, 0) is not None and getattr(args, flag, 0) < (1 if flag == "threads" else 0):
            raise TesselError(
                f"--{flag} must be {'at least 1' if flag == 'threads' else 'non-negative'}, got {getattr(args, flag)}"
            )
    if (args.emulate or args.arch) and args.target != "gpu":
        raise TesselError("--emulate and --arch apply to the gpu target")
    if args.mcpu is not None and args.target != "cpu":
        raise TesselError("--mcpu applies to the cpu target")
    from tessel.targets.cpu import cpu_target  # (llvmlite: only when compiling for the CPU)

    cpu = cpu_target.named(args.mcpu) if args.mcpu is not None else None
    if cpu is not None:
        cpu_target.require_runnable(cpu, f"--mcpu {args.mcpu}: the model")
    check_output_path(args.output)
    weights: Mapping[str, np.ndarray]
    started = time.perf_counter()
    if is_onnx:
        from tessel.frontends.onnx import import_model, load_model  # (onnx: a second to import; .mlir needs none)

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
    imported = time.perf_counter() - started
    fn = entry_function(module, args.entry)
    in_ports, out_ports = inputs(fn), outputs(fn)
    given = load_npz(args.inputs, "inputs") if args.inputs else random_inputs(in_ports, args.seed)
    feed = _arrange_inputs(in_ports, given, args.inputs or args.model)

    if args.precision != "fp32" and args.target != "cpu":
        raise TesselError(f"--precision {args.precision} is for the cpu target, not {args.target}")
    note = (cpu or cpu_target.host()).bf16_note() if args.precision == "bf16" and args.target == "cpu" else None
    if note is not None:
        print(f"note: --precision {note}", file=sys.stderr)
    if compiled:
        if args.entry not in (None, "main"):
            raise TesselError(f"the {args.target} target compiles @main")
        reference_module = module.clone() if args.check else None
        if args.target == "gpu":
            executable, report = compile_for_gpu(
                module,
                weights,
                emulate=args.emulate,
                threads=args.threads,
                dump_dir=args.dump_ir,
                arch=args.arch,
                records=args.records,
                verify_each=args.verify_each or None,
            )
        else:
            with cpu_target.use(cpu):
                executable, report = compile_for_cpu(
                    module,
                    weights,
                    threads=args.threads,
                    dump_dir=args.dump_ir,
                    records=args.records,
                    verify_each=args.verify_each or None,
                    precision=args.precision,
                )
        print(report.summary())
        if args.time_passes:
            report.seconds = {"import": imported, **report.seconds}
            print(report.time_passes())
        start = time.perf_counter()
        results = executable.run(feed)
        elapsed = time.perf_counter() - start
    else:
        start = time.perf_counter()
        results = run(module, feed, weights, args.entry)
        elapsed = time.perf_counter() - start
    named = {p.name: r for p, r in zip(out_ports, results)}
    print(f"ran @{fn.sym_name.data} on target {args.target} in {elapsed * 1e3:.1f} ms")
    for name, value in named.items():
        print(_describe(name, value))
    if args.output:
        save_npz_atomically(args.output, named)
    if args.target == "gpu" and args.time and not args.emulate:
        times = executable.device_times(feed, args.time)
        print(
            f"time: median {float(np.median(times)):.3f} ms over {args.time} runs on the GPU (CUDA events, launches only)"
        )
    elif compiled and args.time:
        session = onnxruntime_session(model, args.threads) if is_onnx else None
        feed_by_name = {p.name: a for p, a in zip(in_ports, feed)} | parse_bindings(args.bind) if is_onnx else None
        ours, theirs = median_times(executable, feed, args.time, session, feed_by_name)
        line = f"time: median {ours:.3f} ms over {args.time} runs, {args.threads} threads"
        if session is not None:
            line += f"; onnxruntime {theirs:.3f} ms (same threads, alternating blocks), ratio {theirs / ours:.2f}"
        print(line)
    if compiled and args.profile:
        print_profile(executable.profile(feed, args.profile))

    if not args.check:
        return 0
    if args.rtol is None:
        args.rtol = BF16_RTOL if args.precision == "bf16" else 1e-4
        if args.precision == "bf16":
            print(f"--precision bf16: checked against float32 with rtol {BF16_RTOL} (bfloat16 has 8 significant bits)")
    ok = True
    if compiled:
        assert reference_module is not None  # (cloned when checking)
        expected = dict(zip((p.name for p in out_ports), run(reference_module, feed, weights)))
        report = compare(named, expected, args.rtol, args.atol)
        print(f"check against the reference semantics: {report.summary()}")
        ok &= report.ok
    if not is_onnx:
        return 0 if ok else 1
    feed_by_name = {p.name: a for p, a in zip(in_ports, feed)} | parse_bindings(args.bind)
    for oracle, outcome in onnx_oracles(model, feed_by_name):
        if isinstance(outcome, str):
            print(f"check against {oracle}: not run, it cannot run this model ({outcome})")
            continue
        report = compare(named, outcome, args.rtol, args.atol)
        print(f"check against {oracle}: {report.summary()}")
        ok &= report.ok
    return 0 if ok else 1
