"""`tessel.he`: compile a kernel over plaintext vectors (a `hev.spec`) into a verified BFV
program, then encrypt, run and decrypt it on Microsoft SEAL.

    import tessel
    spec = '''
    func.func @dot(%a: !hev.vec<8>, %b: !hev.vec<8> {hev.public}) -> (!hev.vec<8> {hev.slots = array<i64: 0>})
        attributes {hev.spec} {
      %p = hev.spec.mul %a, %b : !hev.vec<8>
      %s = hev.spec.sum %p : !hev.vec<8>
      func.return %s : !hev.vec<8>
    }'''
    dot = tessel.he.compile(spec, budget=30)   # synthesized, verified exactly, parameters chosen
    enc = dot.encrypt(a=[1, 2, 3, 4, 5, 6, 7, 8], b=[1] * 8)
    out = dot.decrypt(dot.run(enc))            # out[0] == 36
    print(dot.params, dot.galois_steps)        # the chosen SEAL parameters, the rotation keys
    header = dot.seal_cpp()                    # the same program as SEAL C++

`encrypt` is the client's side (secret inputs encrypted, `hev.public` ones encoded), `run`
the server's (it never sees a secret), `decrypt` the client's again; calling the kernel
does all three. The synthesis is Porcupine's (z3 over a sketch, proven optimal within the
budget, then re-verified over every slot); `tessel-run --target seal` and `tessel-translate
--target seal-cpp` are the command-line layers over the same pipeline.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tessel.runtime.errors import TesselError

if TYPE_CHECKING:  # xDSL, z3 and SEAL load on first use (import tessel stays cheap)
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Operation, SSAValue

    from tessel.dialects.hev.kernel import Interface
    from tessel.targets.seal.runtime import SealRuntime

__all__ = ["Encrypted", "HeKernel", "Result", "arrange_inputs", "compile"]


@dataclass
class Encrypted:
    """A kernel's inputs after the client's side: SEAL ciphertexts and plaintexts, ready for
    `HeKernel.run`. Bound to the keys of the kernel that made it."""

    values: dict[SSAValue, Any]
    kernel: HeKernel


@dataclass
class Result:
    """The encrypted result of a run: a SEAL ciphertext, to be given to `HeKernel.decrypt`."""

    ciphertext: Any
    kernel: HeKernel

    @property
    def noise_budget(self) -> int:
        """The bits of noise budget left; decryption is correct while it is positive."""
        return int(self.kernel.runtime.noise_budget(self.ciphertext))


def arrange_inputs(interface: Interface, given: Mapping[str, Any], where: str = "") -> list[np.ndarray]:
    """The kernel's input vectors in argument order from `given` (by argument name), checked
    against its declarations (names, `slots` integers each, bits and zero-padded layouts)
    and reduced modulo t; errors name `where` (a file) when given."""
    prefix = f"{where}: " if where else ""
    names = [a.name for a in interface.arguments]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise TesselError(f"{prefix}no kernel input named {', '.join(unknown)} (inputs: {', '.join(names)})")
    out = []
    for a in interface.arguments:
        if a.name not in given:
            raise TesselError(f"{prefix}input '{a.name}' is missing")
        v = np.asarray(given[a.name])
        if v.shape != (interface.slots,) or v.dtype.kind not in "iub":
            raise TesselError(
                f"{prefix}input '{a.name}' is {v.dtype}{list(v.shape)}, the kernel takes {interface.slots} integers"
            )
        out.append(v.astype(np.int64) % interface.plain_modulus)
    try:
        interface.check_inputs(out)
    except TesselError as err:
        raise TesselError(f"{prefix}{err.message}") from None
    return out


class HeKernel:
    """A synthesized BFV program for one spec, with its SEAL parameters and keys.

    Keys are made on first use and kept (one secret key per kernel object): `encrypt`,
    `run` and `decrypt` of one kernel object work together, as a client and its server."""

    def __init__(self, module: ModuleOp, program: func.FuncOp, keys: str = "exact"):
        from tessel.dialects.hev import kernel
        from tessel.pipelines import he

        self.module = module
        self.program = program
        self.spec = he.spec_of(module, program)
        self.interface: Interface = kernel.interface(self.spec)
        self.params_set, _ = he.parameters_for(program, "auto")
        self.keys = keys
        self._runtime: SealRuntime | None = None
        self._server: tuple[list[Operation], Any] | None = None  # the server's ops and the decrypt

    # ------------------------------------------------------------------ what was chosen

    @property
    def name(self) -> str:
        """The program's function name (the spec's name + `_synth`)."""
        return str(self.program.sym_name.data)

    @property
    def inputs(self) -> list[str]:
        """The argument names, in call order."""
        return [a.name for a in self.interface.arguments]

    @property
    def slots(self) -> int:
        return int(self.interface.slots)

    @property
    def plain_modulus(self) -> int:
        return int(self.interface.plain_modulus)

    @property
    def params(self) -> str:
        """The SEAL parameter set the program runs at (the cheapest measured one that leaves
        enough noise budget), described: N, the coefficient modulus bits."""
        return f"{self.params_set.name}: {self.params_set.describe()}"

    @property
    def galois_steps(self) -> list[int]:
        """The rotation steps the program needs Galois keys for (one key each)."""
        from tessel.dialects.hev.metrics import normalize_rotation, rotations

        return sorted({s for r in rotations(self.program) if (s := normalize_rotation(r, self.slots))})

    @property
    def depth(self) -> int:
        """The multiplicative depth of the program."""
        from tessel.dialects.hev.metrics import depth

        return int(depth(self.program))

    @property
    def operations(self) -> dict[str, int]:
        """How many of each homomorphic operation the program runs."""
        from tessel.dialects.hev.metrics import op_counts

        return {k: int(v) for k, v in op_counts(self.program).items() if v}

    def ir(self) -> str:
        """The program as `hev` IR text."""
        from tessel.ir.source import print_module

        return print_module(self.program)

    def seal_cpp(self) -> str:
        """The program as a C++ header over Microsoft SEAL (`tessel-translate --target seal-cpp`)."""
        from tessel.targets.seal import cpp

        return cpp.translate_module(self.module, f"<{self.name}>", {"entry": self.name})

    # ------------------------------------------------------------------ running on SEAL

    @property
    def runtime(self) -> SealRuntime:
        """The SEAL context and keys (relinearization only if the program multiplies; Galois
        keys only for its rotations), made on first use."""
        if self._runtime is None:
            from tessel.pipelines import he

            self._runtime = he.runtime_for(self.program, self.params_set, self.keys)
        return self._runtime

    def _arrange(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[np.ndarray]:
        names = self.inputs
        if len(args) > len(names):
            raise TesselError(f"@{self.name} takes {len(names)} inputs ({', '.join(names)}), {len(args)} were given")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k in given:
                raise TesselError(f"input '{k}' is given twice (by position and by name)")
            given[k] = v
        return arrange_inputs(self.interface, given)

    def encrypt(self, *args: Any, **kwargs: Any) -> Encrypted:
        """The client's side: secret inputs encrypted, public ones encoded, by position or name."""
        from tessel.targets.seal.execute import prepare

        client, server_ops, decrypt = prepare(self.program, self._arrange(args, kwargs), self.runtime)
        self._server = (server_ops, decrypt)
        return Encrypted(client, self)

    def run(self, inputs: Encrypted) -> Result:
        """The server's side: the program on the encrypted inputs (no secret key used)."""
        from tessel.targets.seal.execute import evaluate

        if inputs.kernel is not self:
            raise TesselError(f"these inputs were encrypted for another kernel than @{self.name} (other keys)")
        assert self._server is not None  # set by encrypt, which made `inputs`
        server_ops, decrypt = self._server
        return Result(evaluate(server_ops, inputs.values, self.runtime)[decrypt.input], self)

    def decrypt(self, result: Result) -> np.ndarray:
        """The client's side again: the result's slots (int64, modulo the plaintext modulus).
        Only the slots the spec declares as outputs (`hev.slots`) are meaningful."""
        if result.kernel is not self:
            raise TesselError(f"this result was computed with another kernel's keys than @{self.name}")
        return np.asarray(self.runtime.decrypt(result.ciphertext), dtype=np.int64)

    def __call__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        """Encrypt, run and decrypt in one call."""
        return self.decrypt(self.run(self.encrypt(*args, **kwargs)))

    def reference(self, *args: Any, **kwargs: Any) -> np.ndarray:
        """The spec's meaning on plaintext vectors (exact integers modulo t): what `__call__`
        returns at the output slots."""
        from tessel.dialects.hev.reference import run_kernel

        return np.asarray(run_kernel(self.module, self.spec, self._arrange(args, kwargs), self.plain_modulus))

    @property
    def output_slots(self) -> list[int]:
        """The slots of the result that the spec defines (`hev.slots`, or all)."""
        return self.interface.all_output_slots()

    def __repr__(self) -> str:
        return f"<HeKernel @{self.name}({', '.join(self.inputs)}), {self.slots} slots, {self.params}>"


def _module(source: str | os.PathLike[str] | ModuleOp) -> ModuleOp:
    from xdsl.dialects.builtin import ModuleOp

    from tessel.dialects.context import make_context
    from tessel.ir.source import parse_module, read_module

    if isinstance(source, ModuleOp):
        return source.clone()
    text = os.fspath(source)
    if "func.func" in text or "hev." in text:
        return parse_module(make_context(), text, "<spec>")
    if not os.path.exists(text):
        raise TesselError(f"{text}: no such file (give a path to a .mlir module or the IR text of a hev.spec)")
    return read_module(make_context(), text)


def compile(
    source: str | os.PathLike[str] | ModuleOp,
    kernel: str | None = None,
    *,
    budget: float = 60.0,
    keys: str = "exact",
    seed: int = 0,
) -> HeKernel:
    """Synthesize the program for the spec `kernel` (default: the only spec) of `source` (IR
    text, a .mlir path or a module), choose its parameters and place its modulus switches.

    `budget`: seconds for the search; `keys`: `"exact"` (a Galois key per rotation step) or
    `"pow2"` (keys for powers of two, a rotation composed of several).

    >>> blur = compile("examples/he/box_blur.mlir", "box_blur")  # doctest: +SKIP
    >>> blur.galois_steps  # doctest: +SKIP
    [1, 64, 65]
    """
    from tessel.dialects.hev import kernel as kernels
    from tessel.passes.he.synthesize import SUFFIX
    from tessel.pipelines import he

    if budget <= 0:
        raise TesselError(f"budget must be positive, got {budget}")
    module = _module(source)
    specs = kernels.specs(module)
    if kernel is None:
        if len(specs) != 1:
            names = ", ".join("@" + s.sym_name.data for s in specs) or "none"
            raise TesselError(f"name the kernel to compile: the module has {len(specs)} specs ({names})")
        kernel = specs[0].sym_name.data
    elif not any(s.sym_name.data == kernel for s in specs):
        names = ", ".join("@" + s.sym_name.data for s in specs) or "none"
        raise TesselError(f"no spec @{kernel} (a function with hev.spec) in the module (specs: {names})")
    he.synthesize(module, kernel=kernel, budget=budget, seed=seed)
    he.select_parameters(module)
    program = kernels.lookup(module, kernel + SUFFIX)
    if program is None:
        raise TesselError(f"he-synthesize made no program for @{kernel}")
    from tessel.dialects.hev.params import by_name

    params, _ = he.parameters_for(program, "auto")
    switched = he.switched(program, by_name(params.name))
    program.detach()
    module.body.block.add_op(switched)
    return HeKernel(module, switched, keys)
