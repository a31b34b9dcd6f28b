"""VTA benchmark: ResNet-18's C2-C12 and a quantized matmul on the simulated accelerator,
without (1 virtual thread) and with (2) latency hiding.

    python -m tessel.bench.vta [--config pynq] [--plot build/bench/vta_roofline.png]

Every layer is compiled, run on the functional simulator against the numpy int8 reference
(bit-exact or the run fails), checked by the hazard checker, and timed by the cycle model.
A layer is *compute-bound* when its arithmetic intensity (ops per byte of compulsory DRAM
traffic: every input, weight and output once) is at or above the roofline's ridge point (peak
ops per cycle / bus bytes per cycle); the plot places the programs at the intensity they
actually achieve (their own traffic, re-loads included);
the goal (>= 88% GEMM utilization with virtual threads, the TVM paper's number) applies to
those. The cycle model's assumptions are the `Timing` defaults (dialects/vta/config.py).

Ends with `RESULT vta util_1vt=<x> util_2vt=<x> bit_exact=<true|false> ...`: the mean GEMM
utilization over the compute-bound layers with 1 and 2 virtual threads, then the mean
*ceiling* over the same layers (GEMM cycles / compute-module cycles: what latency hiding could
reach at best, since the ALU epilogue, accumulator resets and bias loads run on the compute
module too) and the utilization over all layers together.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from tessel.dialects.vta.config import VtaConfig, preset
from tessel.dialects.vta.layer import Conv2dLayer, matmul_layer, random_operands, resnet_layer
from tessel.dialects.vta.reference import conv2d
from tessel.passes.vta.emit.emitter import compile_layer
from tessel.targets.vta.runtime import run_layer

LAYERS = [f"C{i}" for i in range(2, 13)]


def measure(layer: Conv2dLayer, cfg: VtaConfig, vt: int) -> dict:
    x, w, b = random_operands(layer, seed=int(layer.name[1:]) if layer.name[1:].isdigit() else 0)
    start = time.perf_counter()
    prog = compile_layer(layer, cfg, vt)
    compile_s = time.perf_counter() - start
    result = run_layer(layer, prog, x, w, b)
    c = result.cycles
    counts = prog.counts()
    return {
        "layer": layer.name,
        "vt": vt,
        "cycles": c.cycles,
        "util": c.utilization,
        "gops": c.gops(cfg.clock_mhz),
        "exact": bool(np.array_equal(result.output, conv2d(layer, x, w, b))),
        "hazards": 0 if result.hazards.ok else len(result.hazards.lines(prog, 1000)),
        "insns": len(prog.insns),
        "uops": len(prog.uops),
        "uop_execs": c.uops,
        "dram": c.dram_bytes,
        "ops_per_byte": c.ops_per_byte,
        "macs": layer.macs,
        "gemm_insns": counts.get("gemm", 0),
        "schedule": prog.notes[-1].split(": ", 1)[-1],
        "compile_s": compile_s,
        "loads": {k: v for k, v in c.bytes_loaded.items()},
        "stored": c.bytes_stored,
        # what utilization the compute module allows if loads and stores were free: GEMM
        # cycles over all compute-module cycles (reset, ALU epilogue, bias and micro-op loads)
        "ceiling": c.gemm_cycles / c.module_busy["compute"],
    }


def roofline(rows: list[dict], cfg: VtaConfig, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ridge = cfg.ridge_ops_per_byte
    xs = np.logspace(1, 3.3, 200)
    bw = cfg.bus_bytes * cfg.clock_mhz / 1e3  # GB/s
    ax.plot(
        xs,
        np.minimum(cfg.peak_gops, xs * bw),
        "k-",
        lw=1.5,
        label=f"roofline ({cfg.peak_gops:.1f} GOPS, {bw:.1f} GB/s)",
    )
    for vt, marker, color in ((1, "o", "tab:red"), (2, "s", "tab:blue")):
        pts = [r for r in rows if r["vt"] == vt]
        ax.scatter(
            [r["ops_per_byte"] for r in pts],
            [r["gops"] for r in pts],
            marker=marker,
            color=color,
            label=f"{vt} virtual thread{'s' if vt > 1 else ''}",
            zorder=3,
        )
        if vt == 2:
            for r in pts:
                ax.annotate(
                    r["layer"], (r["ops_per_byte"], r["gops"]), fontsize=7, xytext=(3, 3), textcoords="offset points"
                )
    for a, b in zip([r for r in rows if r["vt"] == 1], [r for r in rows if r["vt"] == 2]):
        ax.annotate(
            "",
            (b["ops_per_byte"], b["gops"]),
            (a["ops_per_byte"], a["gops"]),
            arrowprops={"arrowstyle": "->", "color": "gray", "lw": 0.6},
        )
    ax.axvline(ridge, color="gray", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(5, 2 * cfg.peak_gops)
    ax.set_xlabel("arithmetic intensity (ops per DRAM byte)")
    ax.set_ylabel("achieved GOPS (cycle model)")
    ax.set_title(f"VTA ({cfg.name}, {cfg.clock_mhz:g} MHz): ResNet-18 C2-C12, latency hiding")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=120)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="pynq", help="VTA preset (pynq, pynq200, ultra96)")
    p.add_argument("--plot", default="build/bench/vta_roofline.png", help="the roofline PNG")
    p.add_argument("--only", help="comma-separated layers (default: C2..C12 and matmul)")
    args = p.parse_args()
    cfg = preset(args.config)
    names = args.only.split(",") if args.only else [*LAYERS, "matmul"]
    layers = [matmul_layer("matmul", 64, 256, 128, shift=11) if n == "matmul" else resnet_layer(n) for n in names]
    print(f"# {cfg.describe()}; ridge point {cfg.ridge_ops_per_byte:.0f} ops/byte")
    print(f"# timing assumptions: {cfg.timing}")
    print(
        f"{'layer':<7} {'vt':>2} {'cycles':>9} {'util':>6} {'GOPS':>6} {'ops/B':>6} {'DRAM KiB':>9} {'insns':>6} {'uops':>5} "
        f"{'exact':>5} {'hazards':>7}  schedule"
    )
    rows: list[dict] = []
    for layer in layers:
        for vt in (1, 2):
            r = measure(layer, cfg, vt)
            rows.append(r)
            print(
                f"{r['layer']:<7} {vt:>2} {r['cycles']:>9} {r['util']:>6.1%} {r['gops']:>6.1f} {r['ops_per_byte']:>6.1f} "
                f"{r['dram'] / 1024:>9.1f} {r['insns']:>6} {r['uops']:>5} {str(r['exact']):>5} {r['hazards']:>7}  {r['schedule']}",
                flush=True,
            )
    by = {(r["layer"], r["vt"]): r for r in rows}
    ridge = cfg.ridge_ops_per_byte
    bound = [layer.name for layer in layers if layer.intensity() >= ridge]
    print()
    print(f"{'layer':<7} {'speedup 2vt':>11} {'util 1vt':>9} {'util 2vt':>9} {'ceiling':>8}  bound")
    for layer in layers:
        a, b = by[(layer.name, 1)], by[(layer.name, 2)]
        kind = "compute" if layer.name in bound else "memory"
        print(
            f"{layer.name:<7} {a['cycles'] / b['cycles']:>11.2f} {a['util']:>9.1%} {b['util']:>9.1%} {b['ceiling']:>8.1%}  {kind}"
        )
    total = {vt: sum(by[(n.name, vt)]["cycles"] for n in layers) for vt in (1, 2)}
    busy = {vt: sum(by[(n.name, vt)]["uop_execs"] for n in layers) for vt in (1, 2)}
    mean = {vt: float(np.mean([by[(n, vt)]["util"] for n in bound])) if bound else 0.0 for vt in (1, 2)}
    ceiling = float(np.mean([by[(n, 2)]["ceiling"] for n in bound])) if bound else 0.0
    exact = all(r["exact"] and r["hazards"] == 0 for r in rows)
    print(f"\ncompute-bound layers (compulsory traffic >= {ridge:.0f} ops/byte): {', '.join(bound) or 'none'}")
    print(
        f"mean GEMM utilization over them: {mean[1]:.1%} with 1 virtual thread, {mean[2]:.1%} with 2 "
        f"(the compute module's own ceiling, ALU epilogue included: {ceiling:.1%})"
    )
    print(
        f"all layers: {total[1]} -> {total[2]} cycles ({total[1] / total[2]:.2f}x), utilization {busy[1] / total[1]:.1%} -> {busy[2] / total[2]:.1%}; "
        f"{total[2] / (cfg.clock_mhz * 1e3):.2f} ms at {cfg.clock_mhz:g} MHz"
    )
    roofline(rows, cfg, args.plot)
    print(f"roofline written to {args.plot}")
    print(
        f"RESULT vta util_1vt={mean[1]:.3f} util_2vt={mean[2]:.3f} bit_exact={str(exact).lower()} "
        f"ceiling_2vt={ceiling:.3f} all_layers_util_1vt={busy[1] / total[1]:.3f} all_layers_util_2vt={busy[2] / total[2]:.3f}"
    )
    return 0 if exact else 1


if __name__ == "__main__":
    raise SystemExit(main())
