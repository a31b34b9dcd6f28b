"""Tessel's GPU target against PyTorch on the same GPU: sgemm, ResNet-18's convolutions,
ResNet-18 batch 1.

    python -m tessel.bench.gpu [--runs 20] [--skip-compile] [--convs C2,C11] [--records gpu.jsonl]
                                                                 (needs an NVIDIA GPU)
    python -m tessel.bench.gpu --dry-run                         (the script's flow on small workloads)

Everything fp32 at batch 1 (TF32 off for the peers, `torch.backends.cudnn.benchmark` on):
* sgemm 1024^3 and 4096^3: a tg.matmul compiled for the GPU vs torch.matmul (cuBLAS);
* C1-C12 (ResNet-18's convolutions as the TVM paper names them, with bias): a tg.conv2d
  vs torch.nn.functional.conv2d (cuDNN);
* ResNet-18 (examples/models/resnet18.py, imported from ONNX) vs the same network written
  in torch, eager and torch.compile.
Times are CUDA-event medians of the launches alone (inputs already on the device), runs of
Tessel and the peer interleaved. Every Tessel result is checked against the peer's first.

Ends with `RESULT gpu sgemm4096_vs_cublas=<x> conv_geomean_vs_cudnn=<x>
resnet18_vs_torch_eager=<x>` (peer time / Tessel time: above 1 is faster than the peer).
"""

from __future__ import annotations

import argparse
import importlib
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tessel.ir.diagnostics import TesselError

ROOT = Path(__file__).resolve().parents[1]
CONVS = {  # name: (in channels, height = width, out channels, kernel, stride)
    "C1": (3, 224, 64, 7, 2),
    "C2": (64, 56, 64, 3, 1),
    "C3": (64, 56, 64, 1, 1),
    "C4": (64, 56, 128, 3, 2),
    "C5": (64, 56, 128, 1, 2),
    "C6": (128, 28, 128, 3, 1),
    "C7": (128, 28, 256, 3, 2),
    "C8": (128, 28, 256, 1, 2),
    "C9": (256, 14, 256, 3, 1),
    "C10": (256, 14, 512, 3, 2),
    "C11": (256, 14, 512, 1, 2),
    "C12": (512, 7, 512, 3, 1),
}


def matmul_module(m: int, k: int, n: int) -> str:
    return (
        f"func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{\n"
        f"  %c = tg.matmul %a, %b : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n"
        f"  func.return %c : tensor<{m}x{n}xf32>\n}}\n"
    )


def conv_module(c: int, hw: int, oc: int, k: int, s: int) -> str:
    p = k // 2
    o = (hw + 2 * p - k) // s + 1
    x, w, b, y = (
        f"tensor<1x{c}x{hw}x{hw}xf32>",
        f"tensor<{oc}x{c}x{k}x{k}xf32>",
        f"tensor<{oc}x1x1xf32>",
        f"tensor<1x{oc}x{o}x{o}xf32>",
    )
    return (
        f"func.func @main(%x: {x}, %w: {w}, %b: {b}) -> {y} {{\n"
        f"  %a = tg.conv2d %x, %w {{strides = array<i64: {s}, {s}>, pads = array<i64: {p}, {p}, {p}, {p}>, "
        f"dilations = array<i64: 1, 1>, groups = 1 : i64}} : ({x}, {w}) -> {y}\n"
        f"  %r = tg.add %a, %b : ({y}, {b}) -> {y}\n  func.return %r : {y}\n}}\n"
    )


class Timer:
    """CUDA-event medians of a torch callable (wall-clock ones for the CPU of a dry run)."""

    def __init__(self, torch, cuda: bool = True) -> None:  # noqa: ANN001
        self.torch = torch
        self.cuda = cuda

    def median_ms(self, fn, runs: int, warmup: int = 3) -> float:  # noqa: ANN001
        torch = self.torch
        for _ in range(warmup):
            fn()
        if not self.cuda:
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                fn()
                times.append((time.perf_counter() - start) * 1e3)
            return statistics.median(times)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(runs):
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)


RECORDS: str | None = None  # --records: a tessel-tune --target gpu log for the sgemms and convolutions


def _tessel(text: str, inputs: list[np.ndarray]):  # noqa: ANN202
    from tessel.dialects.context import make_context
    from tessel.ir.source import parse_module
    from tessel.ir.weights import WeightStore
    from tessel.pipelines.tensor import compile_for_gpu

    module = parse_module(make_context(), text, "bench.mlir")
    executable, report = compile_for_gpu(module, WeightStore({}), records=RECORDS)
    if RECORDS:
        print(f"# {report.tuned} stages tuned from {RECORDS}, {len(report.untuned)} on default schedules")
    return executable, executable.run(inputs)


def _interleaved(ours, theirs, runs: int) -> tuple[float, float]:  # noqa: ANN001
    """Medians of `ours()` and `theirs()` (lists of ms), in alternating blocks."""
    a, b = [], []
    for _ in range(max(1, runs // 5)):
        a += ours(5)
        b.append(theirs(5))
    return statistics.median(a), statistics.median(b)


def bench_sgemm(torch, timer: Timer, n: int, runs: int) -> tuple[float, float, float]:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
    exe, (c,) = _tessel(matmul_module(n, n, n), [a, b])
    ta, tb = torch.from_numpy(a).to(DEVICE), torch.from_numpy(b).to(DEVICE)
    ref = (ta @ tb).cpu().numpy()
    err = float(np.abs(c - ref).max() / np.abs(ref).max())
    ours, theirs = _interleaved(
        lambda k: exe.device_times([a, b], k, warmup=1), lambda k: timer.median_ms(lambda: ta @ tb, k), runs
    )
    exe.close()
    return ours, theirs, err


def bench_conv(torch, timer: Timer, name: str, runs: int, shrink: int = 1) -> tuple[float, float, float]:
    c, hw, oc, k, s = CONVS[name]
    c, hw, oc = max(3, c // shrink), max(k, hw // shrink), max(16, oc // shrink)  # (a dry run's small layers)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
    w = (rng.standard_normal((oc, c, k, k)) / math.sqrt(c * k * k)).astype(np.float32)
    b = rng.standard_normal((oc, 1, 1)).astype(np.float32)
    exe, (y,) = _tessel(conv_module(c, hw, oc, k, s), [x, w, b])
    tx, tw, tb = (torch.from_numpy(v).to(DEVICE) for v in (x, w, b.reshape(-1)))
    F = torch.nn.functional

    def peer() -> Any:  # a torch tensor
        return F.conv2d(tx, tw, tb, stride=s, padding=k // 2)

    ref = peer().cpu().numpy()
    err = float(np.abs(y - ref).max() / np.abs(ref).max())
    ours, theirs = _interleaved(
        lambda n: exe.device_times([x, w, b], n, warmup=1), lambda n: timer.median_ms(peer, n), runs
    )
    exe.close()
    return ours, theirs, err


def torch_resnet18(torch):  # noqa: ANN001, ANN201
    """ResNet-18 in torch, written out (torchvision is not assumed), random weights."""
    nn = torch.nn
    module: Any = nn.Module  # (torch is passed in: a base class mypy cannot see)

    class Block(module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = nn.BatchNorm2d(cout)
            self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(cout)
            self.down = (
                None
                if stride == 1 and cin == cout
                else nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
            )

        def forward(self, x):  # noqa: ANN001, ANN202
            y = torch.relu(self.b1(self.c1(x)))
            y = self.b2(self.c2(y))
            return torch.relu(y + (x if self.down is None else self.down(x)))

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    return nn.Sequential(*layers).eval()


def bench_resnet18(torch, timer: Timer, runs: int, compile_peer: bool) -> tuple[float, float, float | None, float]:
    sys.path.insert(0, str(ROOT / "examples" / "models"))
    resnet18 = importlib.import_module("resnet18")  # examples/models/resnet18.py

    from tessel.frontends.onnx import import_model
    from tessel.pipelines.tensor import compile_for_gpu
    from tessel.targets.reference.interpreter import run

    model = resnet18.build()
    x = np.random.default_rng(2).standard_normal((1, 3, 224, 224)).astype(np.float32)
    result = import_model(model, source="resnet18.onnx")
    want = run(result.module.clone(), [x], result.weights)[0]
    exe, _ = compile_for_gpu(result.module, result.weights)
    got = exe.run([x])[0]
    err = float(np.abs(got - want).max() / np.abs(want).max())
    net = torch_resnet18(torch).to(DEVICE)
    tx = torch.from_numpy(x).to(DEVICE)
    with torch.no_grad():
        ours, eager = _interleaved(
            lambda n: exe.device_times([x], n, warmup=1), lambda n: timer.median_ms(lambda: net(tx), n), runs
        )
        compiled = None
        if compile_peer:
            fast = torch.compile(net)
            compiled = timer.median_ms(lambda: fast(tx), runs, warmup=5)
    exe.close()
    return ours, eager, compiled, err


DEVICE = "cuda"  # where the peers' tensors live ("cpu" in a dry run)


def main(argv: list[str] | None = None) -> int:
    global DEVICE, RECORDS
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--skip-compile", action="store_true", help="do not time torch.compile (it takes a minute)")
    p.add_argument("--convs", default=",".join(CONVS), help="which of C1-C12 (comma-separated)")
    p.add_argument("--records", help="a tessel-tune --target gpu log: the sgemms and convolutions use its schedules")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="the whole script on small workloads, peers on the CPU, no ResNet-18: checks the script, measures nothing",
    )
    args = p.parse_args(argv)
    RECORDS = args.records
    try:
        from tessel.targets.gpu.runtime import open_device

        _, _, arch = open_device()
        import torch
    except (TesselError, ImportError) as problem:
        print(f"bench.gpu: error: {str(problem).removeprefix('error: ')}", file=sys.stderr)
        return 1
    DEVICE = "cpu" if args.dry_run else "cuda"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    timer = Timer(torch, cuda=not args.dry_run)
    t0 = time.perf_counter()
    name = "dry run (peers on the CPU)" if args.dry_run else torch.cuda.get_device_name()
    print(f"# {name} ({arch}), torch {torch.__version__}, fp32, TF32 off, medians of {args.runs} CUDA-event runs")
    print(f"{'workload':<14} {'tessel ms':>10} {'peer ms':>10} {'peer/tessel':>12} {'rel err':>9}  peer")
    rows: dict[str, float] = {}
    sizes = (32, 64) if args.dry_run else (1024, 4096)
    for n in sizes:
        ours, theirs, err = bench_sgemm(torch, timer, n, args.runs)
        rows[f"sgemm{n}"] = theirs / ours
        tflops = 2 * n**3 / ours / 1e9
        print(
            f"{'sgemm ' + str(n):<14} {ours:>10.3f} {theirs:>10.3f} {theirs / ours:>12.3f} {err:>9.1e}  cuBLAS ({tflops:.1f} TFLOP/s ours)"
        )
    conv_ratios = []
    for conv in args.convs.split(","):
        if conv not in CONVS:
            print(f"bench.gpu: error: --convs: unknown layer '{conv}' (C1-C12)", file=sys.stderr)
            return 1
        ours, theirs, err = bench_conv(torch, timer, conv, args.runs, shrink=8 if args.dry_run else 1)
        conv_ratios.append(theirs / ours)
        print(f"{conv:<14} {ours:>10.3f} {theirs:>10.3f} {theirs / ours:>12.3f} {err:>9.1e}  cuDNN")
    geo = math.exp(sum(math.log(r) for r in conv_ratios) / len(conv_ratios))
    if args.dry_run:
        print(
            f"RESULT gpu_dry_run sgemm{sizes[-1]}={rows[f'sgemm{sizes[-1]}']:.3f} conv_geomean={geo:.3f} (not a measurement)"
        )
        return 0
    ours, eager, compiled, err = bench_resnet18(torch, timer, args.runs, not args.skip_compile)
    print(f"{'resnet18':<14} {ours:>10.3f} {eager:>10.3f} {eager / ours:>12.3f} {err:>9.1e}  torch eager")
    if compiled is not None:
        print(f"{'resnet18':<14} {ours:>10.3f} {compiled:>10.3f} {compiled / ours:>12.3f} {err:>9.1e}  torch.compile")
    print(f"({time.perf_counter() - t0:.0f} s)")
    print(
        f"RESULT gpu sgemm4096_vs_cublas={rows['sgemm4096']:.3f} conv_geomean_vs_cudnn={geo:.3f} resnet18_vs_torch_eager={eager / ours:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
