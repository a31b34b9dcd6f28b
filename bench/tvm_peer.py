"""Apache TVM 0.27 as a peer for the operator benchmarks (optional: `pip install
apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.14.post0 xgboost-cpu psutil cloudpickle`).

Two TVM builds of an operator: the default Relax CPU pipeline on the ONNX model (no
schedule: TVM's own untuned baseline), and MetaSchedule on the operator's tensor
expression with a given trial budget (`tune_tir`, the XGBoost cost model when xgboost is
installed), which is the like-for-like comparison for tessel-tune. The API notes and the
pitfalls worked around here (the CPU named explicitly since `-mcpu=native` silently falls
back to generic in this wheel, dict targets, a long builder timeout) are in
shared/research/cpu.md.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

import numpy as np


def available() -> bool:
    try:
        import tvm  # noqa: F401
        from tvm.s_tir import meta_schedule  # noqa: F401
    except Exception:  # noqa: BLE001  (not installed, or a broken install)
        return False
    return True


def _target(threads: int):
    import llvmlite.binding as llvm
    import tvm

    return tvm.target.Target({"kind": "llvm", "mcpu": llvm.get_host_cpu_name(), "num-cores": threads})


def untuned(model, feed: dict[str, np.ndarray], threads: int) -> Callable[[], object]:
    import tvm
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx

    os.environ["TVM_NUM_THREADS"] = str(threads)
    mod = from_onnx(model, keep_params_in_input=False)
    vm = relax.VirtualMachine(tvm.compile(mod, target=_target(threads)), tvm.cpu())
    args = [tvm.runtime.tensor(v) for v in feed.values()]
    return lambda: vm["main"](*args)


def _expression(kind: str, shape: tuple):
    from tvm import te, topi

    if kind == "matmul":
        (n,) = shape
        a = te.placeholder((n, n), name="A")
        b = te.placeholder((n, n), name="B")
        k = te.reduce_axis((0, n), name="k")
        c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
        return [a, b, c], [(n, n), (n, n)]
    h, w, ic, oc, kk, s = shape if kind == "conv" else (*shape[:3], shape[2], *shape[3:])
    x = te.placeholder((1, ic, h, w), name="X")
    if kind == "conv":
        weight = te.placeholder((oc, ic, kk, kk), name="W")
        y = topi.nn.conv2d_nchw(x, weight, stride=s, padding=kk // 2, dilation=1)
    else:
        weight = te.placeholder((ic, 1, kk, kk), name="W")
        y = topi.nn.depthwise_conv2d_nchw(x, weight, stride=s, padding=kk // 2, dilation=1)
    return [x, weight, y], [tuple(int(d) for d in x.shape), tuple(int(d) for d in weight.shape)]


def tuned(
    kind: str, shape: tuple, trials: int, threads: int, workdir: str | None = None
) -> tuple[Callable[[], object], float]:
    """A MetaSchedule-tuned build of the operator and the seconds tuning took."""
    import time

    import tvm
    from tvm import te
    from tvm.s_tir import meta_schedule as ms

    os.environ["TVM_NUM_THREADS"] = str(threads)
    tensors, input_shapes = _expression(kind, shape)
    mod = tvm.IRModule({"main": te.create_prim_func(tensors)})
    target = _target(threads)
    try:
        import xgboost  # noqa: F401

        cost_model = "xgb"
    except ImportError:
        cost_model = "random"
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        db = ms.tir_integration.tune_tir(
            mod=mod,
            target=target,
            work_dir=workdir or d,
            max_trials_global=trials,
            cost_model=cost_model,
            builder=ms.builder.LocalBuilder(timeout_sec=900),
        )
        sch = ms.tir_integration.compile_tir(db, mod, target)
    seconds = time.perf_counter() - start
    if sch is None:
        raise RuntimeError("MetaSchedule built no candidate")
    lib = tvm.compile(sch.mod, target=target)
    rng = np.random.default_rng(0)
    args = [tvm.runtime.tensor(rng.standard_normal(s).astype(np.float32)) for s in input_shapes]
    out_shape = tuple(int(d) for d in tensors[-1].shape)
    args.append(tvm.runtime.empty(out_shape, "float32"))
    return (lambda: lib["main"](*args)), seconds
