"""Differential fuzzing of the GPU lowering: random tg graphs through the whole pipeline
with GPU schedules (loops bound to block and thread indices, tails guarded, shared-memory
tiles) must compile to PTX and, run by the emulator on this CPU, compute what the reference
computes; and random GPU schedules of a matmul (splits with tails, any spatial loops bound,
shared-memory tiles at the reduction or its outer split) must compute a @ b."""

from __future__ import annotations

from profile import fuzz

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from tg_graphs import Graph, assert_close, graphs

from tessel.targets.reference.interpreter import run


@fuzz(ci=15, long=3000)
@given(graphs(steps=8))
def test_whole_gpu_pipeline_matches_the_reference(graph: Graph) -> None:
    from tessel.pipelines.tensor import compile_for_gpu
    from tessel.targets.gpu.nvptx import compile_ptx, emit_ptx_module
    from tessel.targets.gpu.ptxas import assemble, find_ptxas

    want = run(graph.module, graph.inputs, graph.weights)
    module = graph.module.clone()
    executable, _ = compile_for_gpu(module, dict(graph.weights), emulate=True, threads=2)
    try:
        ptx = compile_ptx(emit_ptx_module(module))
        assert ".entry" in ptx or "kernel.launch" not in str(module)
        if find_ptxas() is not None:
            assemble(ptx)
        assert_close(executable.run(list(graph.inputs)), want)
    finally:
        executable.close()


MATMUL = """func.func @k0_matmul(%a: memref<{m}x{k}xf32>, %b: memref<{k}x{n}xf32>, %c: memref<{m}x{n}xf32>) attributes {{kernel.kernel}} {{
  kernel.compute "matmul" %c(i = {m}, j = {n}) reduce(k = {k}) combine "add" init 0.000000e+00 : f32 : memref<{m}x{n}xf32> {{
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<{m}x{k}xf32>
    %y = affine.load %b[%k, %j] : memref<{k}x{n}xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }}
  func.return
}}
"""


@st.composite
def gpu_schedules(draw) -> tuple[str, tuple[int, int, int]]:  # noqa: ANN001
    """A matmul and a sched.stage binding some of its (split) spatial loops."""
    m, n, k = draw(st.integers(1, 40)), draw(st.integers(1, 70)), draw(st.integers(1, 9))
    lines = ['  %i, %j, %k = sched.axes ["i", "j", "k"]']
    bound: list[tuple[str, str]] = []
    names = {"i": m, "j": n}
    order: list[str] = []
    for axis in ("j", "i"):
        if draw(st.booleans()) and names[axis] > 1:
            f = draw(st.integers(1, names[axis]))
            lines.append(f"  %{axis}o, %{axis}i = sched.split %{axis} by {f}")
            order += [f"%{axis}o", f"%{axis}i"]
        else:
            order.append(f"%{axis}")
    chosen = set(draw(st.lists(st.sampled_from(order), unique=True, max_size=len(order))))
    chosen |= {h[:-1] + "o" for h in chosen if h.endswith("i") and len(h) == 3}  # an inner part bound: its outer too
    blocks, threads = ["blockIdx.x", "blockIdx.y", "blockIdx.z"], ["threadIdx.x", "threadIdx.y"]
    for h in sorted(chosen, key=order.index):  # bound loops outermost, an axis's outer part first
        pool = threads if len(h) == 3 and h.endswith("i") else blocks
        bound.append((h, pool.pop(0)))
    full = [h for h, _ in bound] + [h for h in order if h not in {b for b, _ in bound}]
    reduction = ["%k"]
    staged = any(idx.startswith("threadIdx") for _, idx in bound) and draw(st.booleans())
    if staged and k > 1 and draw(st.booleans()):
        lines.append(f"  %ko, %ki = sched.split %k by {draw(st.integers(1, k))}")
        reduction = ["%ko", "%ki"]
    lines.append(f"  sched.reorder {', '.join(full + reduction)}")
    lines += [f"  sched.bind {h} to {idx}" for h, idx in bound]
    if staged:  # shared-memory tiles of a and b, loaded at the (outer) reduction loop
        lines.append(f"  sched.cache_read {reduction[0]}")
    stage = 'sched.stage "k0_matmul__s0" {\n' + "\n".join(lines) + "\n}\n"
    return MATMUL.format(m=m, n=n, k=k) + stage, (m, n, k)


@fuzz(ci=20, long=3000)
@given(gpu_schedules(), st.integers(0, 2**32 - 1))
def test_random_gpu_schedules_compute_the_matmul(case: tuple[str, tuple[int, int, int]], seed: int) -> None:
    from xdsl.passes import PassPipeline

    from tessel.dialects.context import make_context
    from tessel.ir.diagnostics import TesselError
    from tessel.ir.source import parse_module
    from tessel.passes.kernel.to_loops import KernelToLoops
    from tessel.targets.gpu.nvptx import compile_ptx, emit_ptx_module
    from tessel.targets.gpu.ptxas import assemble, find_ptxas

    text, (m, n, k) = case
    ctx = make_context()
    module = parse_module(ctx, text, "fuzz.mlir")
    try:
        PassPipeline((KernelToLoops(target="gpu"),)).apply(ctx, module)
    except TesselError as err:  # the one illegal case drawn: more than 1024 threads
        assert "threads per block exceed 1024" in str(err), (text, str(err))
        return
    ptx = compile_ptx(emit_ptx_module(module))
    if find_ptxas() is not None:
        assemble(ptx)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    _run_stage(module, [a, b, c])
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5, err_msg=text)


def _run_stage(module, arrays) -> None:  # noqa: ANN001
    """Launch the one stage over its grid on the emulator, in place on `arrays`."""
    from tessel.targets.cpu.jit import CompiledModule
    from tessel.targets.cpu.native_plan import NativePlan
    from tessel.targets.gpu.nvptx import emit_host_module, gpu_dims, stages

    (fn,) = stages(module)
    compiled = CompiledModule(emit_host_module(module))
    grid, _ = gpu_dims(fn)
    plan = NativePlan(
        compiled.address("tessel.run_plan"),
        compiled.address("tessel.pool_stop"),
        [
            (
                compiled.address(f"{fn.sym_name.data}.dispatch"),
                [x.ctypes.data for x in arrays],
                grid[0] * grid[1] * grid[2],
            )
        ],
        2,
    )
    plan.run()
    plan.stop()
