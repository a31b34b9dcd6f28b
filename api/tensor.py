"""`tessel.compile`: an ONNX model to a `CompiledModel` for this CPU, callable, savable.

The compiled model runs exactly the code a saved one does: the compiler's plan is written
down as data (`tessel.targets.cpu.export.plan_spec`) and made real by the runtime
(`tessel.runtime.Model`), so `compile(m)(x)` and `load(compile(m).save(p))(x)` differ only
in where the machine code comes from (LLVM's JIT, or the saved shared library).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tessel.runtime import Model, Port
from tessel.runtime.artefact import FORMAT, LIBRARY, MANIFEST, PLAN, WEIGHTS, write_json
from tessel.runtime.errors import TesselError
from tessel.runtime.version import __version__

if TYPE_CHECKING:
    import onnx

    from tessel.pipelines.tensor import CompileReport
    from tessel.targets.cpu.cpu_target import CpuTarget

TARGETS = ("cpu",)


class CompiledModel(Model):
    """A model compiled for this CPU: call it, time it, profile it, save it.

    >>> import tessel
    >>> model = tessel.compile("model.onnx")  # doctest: +SKIP
    >>> model(x)["y"]  # doctest: +SKIP
    >>> model.save("model.tessel")  # doctest: +SKIP
    """

    def __init__(
        self,
        llvm_ir: str | Callable[[], str],
        target: dict[str, Any],
        report: CompileReport,
        cpu: CpuTarget,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self._llvm_ir = llvm_ir  # (a model from the cache reads its IR only when saved)
        self.target = target  # the manifest's description of `cpu`
        self.cpu = cpu
        self.report = report

    @property
    def llvm_ir(self) -> str:
        """The model's code as one LLVM module (what `save()` compiles into its library)."""
        if callable(self._llvm_ir):
            self._llvm_ir = self._llvm_ir()
        return self._llvm_ir

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write a self-contained folder that `tessel.load` runs with numpy and ctypes only:
        the code as a shared library (linked with the system's C compiler), the memory plan,
        the weights and a manifest. An existing folder of a saved model is replaced."""
        from tessel.targets.cpu.export import write_library

        folder = Path(path)
        if folder.exists() and not (folder / MANIFEST).exists():
            if not folder.is_dir() or any(folder.iterdir()):
                raise TesselError(f"{folder} exists and is not a saved Tessel model: choose a new path")
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        os.chmod(tmp, 0o755)  # (mkdtemp makes it private; a deployed model is read by others)
        try:
            write_library(self.llvm_ir, str(tmp / LIBRARY), self.cpu)
            keys = self.plan["weights"]
            arrays: dict[str, Any] = {keys[name]: np.asarray(array) for name, array in self.weights.items()}
            np.savez(tmp / WEIGHTS, **arrays)
            write_json(tmp, PLAN, self.plan)
            manifest = {
                "format": FORMAT,
                "tessel": __version__,
                "target": self.target,
                "threads": self.threads,
                "inputs": [p.to_json() for p in self.inputs],
                "outputs": [p.to_json() for p in self.outputs],
            }
            write_json(tmp, MANIFEST, manifest)
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(tmp, folder)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return folder


def _onnx_model(model: str | os.PathLike[str] | bytes | onnx.ModelProto) -> tuple[onnx.ModelProto, str]:
    import onnx

    from tessel.frontends.onnx import load_model

    if isinstance(model, onnx.ModelProto):
        return model, model.graph.name or "model"
    if isinstance(model, bytes):
        try:
            return onnx.load_from_string(model), "model"
        except Exception as err:  # noqa: BLE001  (protobuf's DecodeError and friends)
            raise TesselError(f"the bytes given are not an ONNX model ({type(err).__name__})") from err
    if isinstance(model, str | os.PathLike):
        return load_model(os.fspath(model)), os.fspath(model)
    raise TesselError(f"model must be an ONNX path, bytes or onnx.ModelProto, not {type(model).__name__}")


def compile(
    model: str | os.PathLike[str] | bytes | onnx.ModelProto,
    target: str = "cpu",
    *,
    threads: int | None = None,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    records: str | os.PathLike[str] | None = None,
    mcpu: str | None = None,
    precision: str = "fp32",
    cache: bool = True,
) -> CompiledModel:
    """Compile an ONNX model (a path, bytes or an `onnx.ModelProto`) for `target`.

    `threads`: the threads each call runs on (default: every CPU); `input_shapes`: static
    shapes for inputs with symbolic dimensions, by name; `records`: a tuning log
    (`tessel.tune`) whose fastest schedule each kernel stage uses; `mcpu`: the CPU to
    compile for instead of this one (`x86-64-v3` for any AVX2 server, `skylake-avx512`,
    `znver4`, ...: tessel.targets.cpu.cpu_target.KNOWN), which this machine must be able to
    run, since the compiled model is callable here; `save()` keeps its code for that CPU.
    `precision="bf16"`: the dense layers (MatMul, Gemm by constant weights) on bfloat16
    weights and activations with float32 sums (vdpbf16ps where the CPU has AVX512-BF16):
    half the weight bytes, results to about 3 significant digits (tessel.bench.cpu_bf16
    reports the error); the default "fp32" changes nothing.

    >>> import tessel
    >>> model = tessel.compile("resnet18.onnx", threads=2)  # doctest: +SKIP
    >>> model.inputs  # doctest: +SKIP
    [Port(name='input', shape=(1, 3, 224, 224), dtype=dtype('float32'))]
    """
    if target not in TARGETS:
        raise TesselError(f"unknown target '{target}' for tessel.compile (targets: {', '.join(TARGETS)})")
    threads = threads if threads is not None else (os.cpu_count() or 1)
    if threads < 1:
        raise TesselError(f"threads must be at least 1, got {threads}")
    from tessel.frontends.onnx import import_model
    from tessel.frontends.onnx.digest import model_digest
    from tessel.ir.signature import inputs, outputs
    from tessel.ir.source import print_module, verify
    from tessel.pipelines.tensor import PRECISIONS, lower

    if precision not in PRECISIONS:
        raise TesselError(f"unknown precision '{precision}' for tessel.compile (precisions: {', '.join(PRECISIONS)})")
    from tessel.targets.cpu import cpu_target, model_cache
    from tessel.targets.cpu.export import JitCode, PlannedExecutable, plan_spec, target_description
    from tessel.targets.reference.interpreter import entry_function

    cpu = cpu_target.named(mcpu) if mcpu is not None else cpu_target.host()
    cpu_target.require_runnable(cpu, "tessel.compile(mcpu=...): the compiled model")
    note = cpu.bf16_note() if precision == "bf16" else None
    if note is not None:
        warnings.warn(f'precision="bf16": {note}', RuntimeWarning, stacklevel=2)
    proto, source = _onnx_model(model)
    if records is not None and not os.path.exists(records):
        raise TesselError(f"no tuning records at {os.fspath(records)}")
    records_path = os.fspath(records) if records is not None else None
    use_cache = cache and model_cache.enabled()
    start = time.perf_counter()
    noted = None
    digest = model_digest(proto) if use_cache else None
    if digest is not None:  # the same model compiled before: found by its content, not imported
        shapes = {name: list(dims) for name, dims in (input_shapes or {}).items()}
        noted = model_cache.source_key(digest, shapes, cpu, records_path, precision)
        recalled = model_cache.recall(noted, cpu)
        if recalled is not None:
            entry, found, noted_ports = recalled
            noted_ins = [Port.from_json(p) for p in noted_ports["inputs"]]
            noted_outs = [Port.from_json(p) for p in noted_ports["outputs"]]
            return _cached(found, entry, start, cpu, precision, noted_ins, noted_outs, threads)
    imported = import_model(proto, source=source, input_shapes=input_shapes)
    module = imported.module
    verify(module)
    fn = entry_function(module, "main")
    ins = [Port(p.name, tuple(p.shape), p.dtype) for p in inputs(fn)]
    outs = [Port(p.name, tuple(p.shape), p.dtype) for p in outputs(fn)]
    ports = {"inputs": [p.to_json() for p in ins], "outputs": [p.to_json() for p in outs]}
    key: str | None = None
    if use_cache:
        key = model_cache.model_key(print_module(module), imported.weights, cpu, records_path, precision)
        hit = model_cache.lookup(key, cpu)
        if hit is not None:
            if noted is not None:
                model_cache.remember(noted, key, ports)
            return _cached(hit, key, start, cpu, precision, ins, outs, threads)
    with cpu_target.use(cpu):
        store, report = lower(module, imported.weights, records=records_path, precision=precision)
        exe = PlannedExecutable(module, store, threads=threads)
        plan, weights = plan_spec(exe)
        llvm_ir = exe.llvm_ir
    if key is not None:
        kept = {f.name: getattr(report, f.name) for f in fields(report) if f.name not in ("seconds", "code")}
        if model_cache.store(key, exe.compiled, plan, weights, llvm_ir, kept) and noted is not None:
            model_cache.remember(noted, key, ports)
    return CompiledModel(
        llvm_ir,
        target_description(cpu, bf16=precision == "bf16"),
        report,
        cpu,
        code=JitCode(exe),
        plan=plan,
        weights=weights,
        inputs=ins,
        outputs=outs,
        threads=threads,
    )


def _cached(
    hit: Any, key: str, start: float, cpu: CpuTarget, precision: str, ins: list[Port], outs: list[Port], threads: int
) -> CompiledModel:
    """The CompiledModel of a model cache entry (model_cache.Hit)."""
    from tessel.pipelines.tensor import CompileReport
    from tessel.targets.cpu.export import CachedCode, target_description

    report = CompileReport(**hit.report)
    report.seconds = {"model-cache": time.perf_counter() - start}
    report.code = f"from the model cache (entry {key[:12]}): no pass and no LLVM ran"
    return CompiledModel(
        hit.llvm_ir_path.read_text,
        target_description(cpu, bf16=precision == "bf16"),
        report,
        cpu,
        code=CachedCode(hit.objects),
        plan=hit.plan,
        weights=hit.weights,
        inputs=ins,
        outputs=outs,
        threads=threads,
    )
