"""Run a `hev` program function on SEAL: encrypt and encode the inputs, evaluate the server
side (timed), decrypt.

Latency is the wall time of the server-side operations only (everything between the
inputs arriving encrypted and the result leaving encrypted): encryption, encoding of the
inputs and constants, and decryption are the client's or one-time work, excluded the same
way for every program. `reps` evaluations of the same encrypted inputs give the median.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tessel.dialects import hev
from tessel.dialects.hev import kernel
from tessel.dialects.hev.metrics import multiplies, rotations
from tessel.dialects.hev.params import ParamSet
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.seal.runtime import SealRuntime

# Operations the server runs (and that are timed), with the runtime method for each.
_SERVER: dict[type[Operation], str] = {
    hev.AddOp: "add",
    hev.SubOp: "sub",
    hev.MultiplyOp: "multiply",
    hev.RelinearizeOp: "relinearize",
    hev.NegateOp: "negate",
    hev.AddPlainOp: "add_plain",
    hev.SubPlainOp: "sub_plain",
    hev.MultiplyPlainOp: "multiply_plain",
    hev.ModSwitchOp: "mod_switch",
}


@dataclass
class Execution:
    output: np.ndarray
    latencies_ms: list[float]
    noise_budget: int  # bits left in the result before decryption
    key_steps: list[int]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies_ms)


def make_runtime(fn: func.FuncOp, params: ParamSet, keys: str = "exact") -> SealRuntime:
    """Keys for exactly what `fn` needs: relinearization only if it multiplies, Galois keys
    only for its rotations."""
    iface = kernel.interface(fn)
    return SealRuntime(params, iface.plain_modulus, iface.slots, rotations(fn), multiplies(fn), keys)


def execute(
    fn: func.FuncOp,
    inputs: Sequence[np.ndarray],
    params: ParamSet,
    reps: int = 1,
    keys: str = "exact",
    runtime: SealRuntime | None = None,
) -> Execution:
    """Run the program `reps` times on the same encrypted inputs."""
    rt = runtime or make_runtime(fn, params, keys)
    client, server_ops, decrypt = prepare(fn, inputs, rt)
    times = []
    values: dict[SSAValue, object] = {}
    for _ in range(reps):
        start = time.perf_counter()
        values = evaluate(server_ops, client, rt)
        times.append((time.perf_counter() - start) * 1e3)
    result = values[decrypt.input]
    return Execution(
        output=rt.decrypt(result),
        latencies_ms=times,
        noise_budget=rt.noise_budget(result),
        key_steps=list(rt.key_steps),
    )


def prepare(
    fn: func.FuncOp, inputs: Sequence[np.ndarray], rt: SealRuntime
) -> tuple[dict[SSAValue, object], list[Operation], hev.DecryptOp]:
    """The client's side before a run: the inputs encrypted or encoded and the constants
    encoded (by SSA value), the server-side operations in order, and the final decrypt."""
    block = fn.body.blocks[0]
    client: dict[SSAValue, object] = {}
    server_ops: list[Operation] = []
    decrypt: hev.DecryptOp | None = None
    for op in block.ops:
        if isinstance(op, hev.EncryptOp):
            client[op.result] = rt.encrypt(inputs[block.args.index(op.input)])
        elif isinstance(op, hev.EncodeOp):
            client[op.result] = rt.encode(inputs[block.args.index(op.input)])
        elif isinstance(op, hev.ConstantOp):
            client[op.result] = rt.constant(op.value.value.data)
        elif isinstance(op, hev.DecryptOp):
            decrypt = op
        elif isinstance(op, func.ReturnOp):
            pass
        elif isinstance(op, hev.RotateOp) or type(op) in _SERVER:
            server_ops.append(op)
        else:
            raise TesselError(f"'{op.name}' cannot run on SEAL", op_location(op))
    if decrypt is None:
        raise TesselError(f"@{fn.sym_name.data} has no hev.decrypt", op_location(fn))
    return client, server_ops, decrypt


def evaluate(
    server_ops: Sequence[Operation], client: dict[SSAValue, object], rt: SealRuntime
) -> dict[SSAValue, object]:
    """The server's side: every operation on the encrypted values, which are left as they are."""
    values = dict(client)
    for op in server_ops:
        args = [values[o] for o in op.operands]
        if isinstance(op, hev.RotateOp):
            values[op.result] = rt.rotate(args[0], op.amount)
        else:
            values[op.results[0]] = getattr(rt, _SERVER[type(op)])(*args)
    return values
