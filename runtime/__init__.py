"""The deployable runtime: run a saved model with numpy and ctypes only.

`tessel.load(folder)` (this package's `load`) reads a folder written by
`CompiledModel.save`, checks that this machine can run its code, dlopens its shared library
and returns a `Model`. Nothing here imports the compiler (xDSL, llvmlite, ONNX) or any other
part of Tessel: a deployment needs the wheel's `tessel/runtime/` and numpy.

>>> import tessel
>>> model = tessel.load("resnet18.tessel")  # doctest: +SKIP
>>> model(input=image)["logits"].argmax()  # doctest: +SKIP
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tessel.runtime.artefact import LIBRARY, MANIFEST, PLAN, WEIGHTS, Port, check_machine, read_json
from tessel.runtime.buffers import aligned
from tessel.runtime.errors import TesselError
from tessel.runtime.library import SharedLibrary
from tessel.runtime.model import LaunchTime, Model, Timing
from tessel.runtime.version import __version__

__all__ = ["LaunchTime", "Model", "Port", "TesselError", "Timing", "__version__", "load"]


def load(path: str | os.PathLike[str], *, threads: int | None = None, max_concurrency: int | None = None) -> Model:
    """Load a saved model folder. `threads`: the threads each call runs on (default: those
    it was compiled with); `max_concurrency`: with one thread, how many calls may run at
    once, each in its own arena (default: the number of CPUs).

    >>> model = load("resnet18.tessel")  # doctest: +SKIP
    >>> model.inputs  # doctest: +SKIP
    [Port(name='input', shape=(1, 3, 224, 224), dtype=dtype('float32'))]
    """
    folder = Path(path)
    if not folder.is_dir():
        raise TesselError(f"{folder} is not a saved Tessel model (no such folder)")
    manifest = read_json(folder, MANIFEST)
    check_machine(manifest, folder)
    plan = read_json(folder, PLAN)
    try:
        with np.load(folder / WEIGHTS, allow_pickle=False) as data:
            weights = {name: aligned(data[key]) for name, key in plan["weights"].items()}
    except (OSError, ValueError, KeyError) as err:
        raise TesselError(f"cannot read the weights of {folder}: {err}") from err
    library = SharedLibrary.open(str(folder / LIBRARY))
    return Model(
        library,
        plan,
        weights,
        [Port.from_json(p) for p in manifest["inputs"]],
        [Port.from_json(p) for p in manifest["outputs"]],
        threads=threads if threads is not None else int(manifest.get("threads", 1)),
        max_concurrency=max_concurrency,
    )
