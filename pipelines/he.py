"""The homomorphic-encryption compiler's pipeline: from a kernel spec to a BFV program that
runs on Microsoft SEAL.

    hev.spec  --he-synthesize-->  program (@k_synth, verified exactly)
              --he-select-parameters-->  hev.params, hev.rotation_keys, hev.noise_estimate
              --he-mod-switch-->  hev.mod_switch placed by the level plan
              --> SEAL: run it (targets/seal/execute.py) or emit C++ (targets/seal/cpp.py)

The passes read the measured cost table (`tessel.dialects.hev.costs`) and never run SEAL;
the SEAL target runs or translates the IR it is given and never runs a pass. This module is
where the two meet: the tools (`tessel-run --target seal`, `tessel-translate --target
seal-cpp`), the benchmark and the examples call it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

from tessel.dialects.context import make_context
from tessel.dialects.hev import costs as cost_tables
from tessel.dialects.hev import kernel
from tessel.dialects.hev.costs import CostTable
from tessel.dialects.hev.params import DEFAULT, ParamSet, by_name
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import read_module
from tessel.passes.he.mod_switch import HeModSwitch, mod_switch_function
from tessel.passes.he.model.choice import DEFAULT_MARGIN, Choice, select
from tessel.passes.he.select_parameters import HeSelectParameters
from tessel.passes.he.synthesize import HeSynthesize
from tessel.targets.seal import cpp
from tessel.targets.seal.execute import Execution, execute, make_runtime
from tessel.targets.seal.runtime import SealRuntime

PARAMS = "hev.params"


def cost_table(path: str = "") -> CostTable:
    """The measured cost table: the shipped one, or another file."""
    return cost_tables.load(path) if path else cost_tables.load()


def synthesize(
    module: ModuleOp, kernel: str = "", budget: float = 60.0, costs: str = "", progress: bool = False, seed: int = 0
) -> ModuleOp:
    """he-synthesize on the module's specs (or the one named `kernel`)."""
    HeSynthesize(kernel=kernel, budget=budget, costs=costs, progress=progress, seed=seed).apply(Context(), module)
    return module


def select_parameters(module: ModuleOp, costs: str = "", margin: float = DEFAULT_MARGIN) -> ModuleOp:
    """he-select-parameters on every program of the module."""
    HeSelectParameters(margin=margin, costs=costs).apply(Context(), module)
    return module


def compile_kernels(
    module: ModuleOp, *, budget: float = 60.0, costs: str = "", progress: bool = False, mod_switch: bool = True
) -> ModuleOp:
    """The whole pipeline on a module of specs: synthesize, select parameters, switch levels."""
    HeSynthesize(budget=budget, costs=costs, progress=progress).apply(Context(), module)
    HeSelectParameters(costs=costs).apply(Context(), module)
    if mod_switch:
        HeModSwitch(costs=costs).apply(Context(), module)
    return module


def choose_parameters(fn: func.FuncOp, table: CostTable | None = None, margin: float = DEFAULT_MARGIN) -> Choice:
    """The cheapest measured parameter set that leaves `margin` bits (he-select-parameters' choice)."""
    return select(fn, table or cost_table(), margin)


def parameters_for(fn: func.FuncOp, how: str = "auto", costs: str = "") -> tuple[ParamSet, str]:
    """The parameter set to run a program at, and how it was chosen: `default` (the paper's
    N=8192), a set's name, or `auto`: the program's `hev.params`, else selected."""
    if how == "default":
        return DEFAULT, "default"
    if how != "auto":
        return by_name(how), "given"
    if PARAMS in fn.attributes:
        attr = fn.attributes[PARAMS]
        if not isinstance(attr, StringAttr):
            raise TesselError(f"@{fn.sym_name.data}: {PARAMS} must name a parameter set, got {attr}")
        return by_name(attr.data), "from hev.params"
    return choose_parameters(fn, cost_table(costs)).params, "selected"


def switched(fn: func.FuncOp, params: ParamSet, table: CostTable | None = None) -> func.FuncOp:
    """A copy of `fn` after he-mod-switch at `params` (the original is left as it is)."""
    copy = fn.clone()
    mod_switch_function(copy, (table or cost_table()).entry(params))
    return copy


def run(
    fn: func.FuncOp,
    inputs: Sequence[np.ndarray],
    params: ParamSet,
    reps: int = 1,
    keys: str = "exact",
    runtime: SealRuntime | None = None,
) -> Execution:
    """Encrypt the inputs, run the program's server side on SEAL `reps` times, decrypt."""
    return execute(fn, inputs, params, reps=reps, keys=keys, runtime=runtime)


def runtime_for(fn: func.FuncOp, params: ParamSet, keys: str = "exact") -> SealRuntime:
    """A SEAL runtime with exactly the keys the program needs (reused across runs)."""
    return make_runtime(fn, params, keys)


def translate_seal_cpp(path: str, options: Mapping[str, str]) -> str:
    """`tessel-translate --target seal-cpp`: programs without `hev.params` get the set
    he-select-parameters would choose, then the SEAL target writes the header."""
    module = read_module(make_context(), path)
    table: CostTable | None = None
    for fn in cpp.programs_to_translate(module, path, options):
        if cpp.params_of(fn) is None:
            table = table or cost_table()
            fn.attributes[PARAMS] = StringAttr(select(fn, table).params.name)
    return cpp.translate_module(module, path, options)


def spec_of(module: ModuleOp, program: func.FuncOp) -> func.FuncOp:
    """The spec a program implements, after checking that the program has its interface."""
    spec = kernel.spec_of(module, program)
    kernel.check_structure(program, spec)
    return spec
