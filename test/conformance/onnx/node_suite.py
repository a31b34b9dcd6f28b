"""The ONNX backend node tests as a conformance suite for Tessel.

The onnx wheel ships only the generators of its node tests, so the suite is generated at
test time from the pinned onnx package (`collect_testcases()`) into
`.cache/onnx-node-tests/onnx-<version>/`, in the layout of ONNX's own test data
(`<test>/model.onnx`, `<test>/test_data_set_<i>/{input,output}_<j>.pb`). Each test is
imported (inputs that feed shape-like operands are bound to their test values, as a
static-shape compiler needs), run on each Tessel target (the reference semantics; the
kernel IR after the graph passes and tg-to-kernel, evaluated with numpy; and compiled for
the CPU and for the GPU) and compared with the expected outputs at the test's own
tolerance, exactly as ONNX's backend runner does.

`make test` runs the reference target on every test and the lowered targets on a cover
(`sampled`): every operator and every element type of the suite in at least
`COVER[target]` tests (3 on the kernel IR, 2 on the CPU, 1 on the GPU path), chosen by name
order, so each lowering reaches the kernel evaluator, LLVM and ptxas on every push in
about a fifth of the time. `make conformance-full` (TESSEL_CONFORMANCE=full) runs every
test on every target and rewrites docs/onnx-coverage.md.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from tessel.dialects.tg.dynamic import DataDependentShape
from tessel.frontends.onnx import import_model, static_inputs
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import verify
from tessel.targets.reference.interpreter import run as run_reference

ROOT = Path(__file__).resolve().parents[3]
CACHE = ROOT / ".cache" / "onnx-node-tests" / f"onnx-{onnx.__version__}"

# The 15 operators of a classic CNN: every node test made only of these must pass.
CNN_CORE = frozenset(
    "Conv MatMul Gemm Relu Add Mul MaxPool AveragePool GlobalAveragePool BatchNormalization "
    "Softmax Reshape Flatten Concat Transpose".split()
)


# How many tests must show each operator and element type on a lowered target in `make
# test` (the GPU path shares the CPU's lowering and differs only in schedules and codegen).
COVER = {"kernels": 3, "cpu": 2, "gpu": 1}
FULL = os.environ.get("TESSEL_CONFORMANCE") == "full"
OUTCOME_PROPERTY = "onnx-node-outcome"  # the user_properties key of a test's outcome


class Outcome(Enum):
    PASSED = "passed"
    FAILED = "failed"
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class NodeTest:
    name: str
    path: Path
    rtol: float
    atol: float

    def model(self) -> onnx.ModelProto:
        return onnx.load(self.path / "model.onnx")

    def data_sets(self, model: onnx.ModelProto) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
        sets = []
        for d in sorted(self.path.glob("test_data_set_*")):
            ins = [_read_tensor(d / f"input_{j}.pb") for j in range(len(model.graph.input))]
            outs = [_read_tensor(d / f"output_{j}.pb") for j in range(len(model.graph.output))]
            sets.append((ins, outs))
        return sets


def _read_tensor(path: Path) -> np.ndarray:
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return numpy_helper.to_array(tensor)


def op_types(model: onnx.ModelProto) -> set[str]:
    return {node.op_type for node in model.graph.node}


# --------------------------------------------------------------------------- generation


def _write_value(path: Path, value: object, info: onnx.ValueInfoProto) -> None:
    kind = info.type.WhichOneof("value")
    if kind == "sequence_type":
        proto = numpy_helper.from_list(value, info.name)
    elif kind == "optional_type":
        proto = numpy_helper.from_optional(value, info.name)
    elif kind == "map_type":
        proto = numpy_helper.from_dict(value, info.name)
    elif isinstance(value, onnx.TensorProto):
        proto = value
    else:
        proto = numpy_helper.from_array(np.asarray(value), info.name)
    path.write_bytes(proto.SerializeToString())


def generate(target: Path = CACHE) -> Path:
    """Write every node test of the installed onnx package (once; a marker file says done).

    Several processes may ask at once (pytest-xdist's workers each collect the suite): one
    writes, under a lock, into a private folder renamed into place when whole; the others
    wait for the lock and find the marker."""
    marker = target / "COMPLETE"
    if marker.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists():
            return target
        partial = target.parent / f".{target.name}.{os.getpid()}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        _write_cases(partial)
        shutil.rmtree(target, ignore_errors=True)  # (an interrupted older layout)
        os.rename(partial, target)
    return target


def _write_cases(target: Path) -> None:
    from onnx.backend.test.case.node import collect_testcases

    target.mkdir(parents=True)
    index = {}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    for case in cases:
        out = target / case.name
        out.mkdir()
        (out / "model.onnx").write_bytes(case.model.SerializeToString())
        for i, (ins, outs) in enumerate(case.data_sets):
            d = out / f"test_data_set_{i}"
            d.mkdir()
            for j, value in enumerate(ins):
                _write_value(d / f"input_{j}.pb", value, case.model.graph.input[j])
            for j, value in enumerate(outs):
                _write_value(d / f"output_{j}.pb", value, case.model.graph.output[j])
        index[case.name] = {"rtol": case.rtol, "atol": case.atol}
    (target / "index.json").write_text(json.dumps(index, indent=0, sort_keys=True))
    (target / "COMPLETE").write_text(onnx.__version__)


# The exclusions (what "in scope" means in the coverage table): training ops,
# sequence / optional / map / string ops, random generators, image decoding, the ai.onnx.ml
# and preview domains, and the float8 / int4 / float4 / complex element types.
OUT_OF_SCOPE_OPS = {
    "training": {"Adagrad", "Adam", "Momentum", "Gradient"},
    "sequence": {
        "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert",
        "SequenceLength", "SequenceMap", "SplitToSequence", "ConcatFromSequence",
    },
    "optional": {"Optional", "OptionalGetElement", "OptionalHasElement"},
    "string": {"StringNormalizer", "StringConcat", "StringSplit", "RegexFullMatch"},
    "random": {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial", "Bernoulli"},
    "image decoding": {"ImageDecoder"},
}  # fmt: skip
OUT_OF_SCOPE_TYPES = {
    "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "FLOAT8E8M0",
    "INT4", "UINT4", "INT2", "UINT2", "FLOAT4E2M1", "COMPLEX64", "COMPLEX128", "STRING",
}  # fmt: skip


def out_of_scope(model: onnx.ModelProto) -> str | None:
    """Why a node test is outside the issue's scope (None: in scope), from its operators, their
    domains and the types of the graph's inputs and outputs."""
    for node in model.graph.node:
        if node.domain not in ("", "ai.onnx"):
            return f"domain {node.domain}"
        for kind, ops in OUT_OF_SCOPE_OPS.items():
            if node.op_type in ops:
                return f"{kind} op {node.op_type}"
    for v in [*model.graph.input, *model.graph.output]:
        kind = v.type.WhichOneof("value")
        if kind != "tensor_type":
            return f"{kind.removesuffix('_type')} values"
        name = onnx.TensorProto.DataType.Name(v.type.tensor_type.elem_type)
        if name in OUT_OF_SCOPE_TYPES:
            return f"element type {name.lower()}"
    return None


def features(model: onnx.ModelProto) -> set[str]:
    """What a cover must reach: the graph's operators and its tensors' element types."""
    found = set(op_types(model))
    for v in [*model.graph.input, *model.graph.output]:
        if v.type.HasField("tensor_type"):
            found.add(f"dtype:{onnx.TensorProto.DataType.Name(v.type.tensor_type.elem_type)}")
    return found


def sampled(cases: Sequence[NodeTest], target: str) -> list[NodeTest]:
    """Every case on a full run or a target without a cover; else the greedy cover in name
    order: a case is taken while one of its features is in fewer than COVER[target] taken."""
    if FULL or target not in COVER:
        return list(cases)
    seen: Counter[str] = Counter()
    taken = []
    for case in cases:
        found = features(case.model())
        if any(seen[f] < COVER[target] for f in found):
            taken.append(case)
            seen.update(found)
    return taken


def load_cases() -> list[NodeTest]:
    root = generate()
    index = json.loads((root / "index.json").read_text())
    return [NodeTest(name, root / name, v["rtol"], v["atol"]) for name, v in sorted(index.items())]


# --------------------------------------------------------------------------- running

Runner = Callable[..., list[np.ndarray]]


def run_cpu(module, inputs: Sequence[np.ndarray], weights) -> list[np.ndarray]:
    """Compile for the CPU (the whole pipeline: passes, kernels, loops, LLVM) and run."""
    from tessel.pipelines.tensor import compile_for_cpu

    executable, _ = compile_for_cpu(module, weights, threads=2)
    try:
        return executable.run(inputs)
    finally:
        executable.close()


def run_kernels(module, inputs: Sequence[np.ndarray], weights) -> list[np.ndarray]:
    """The graph passes and tg-to-kernel, then the kernel IR evaluated with numpy: checks
    the lowering to kernels apart from loop scheduling and code generation."""
    from tessel.dialects.kernel.reference import run_kernel_module
    from tessel.pipelines.tensor import lower

    store, _ = lower(module, weights, stop_after="tg-to-kernel")
    return run_kernel_module(module, inputs, store)


def run_gpu(module, inputs: Sequence[np.ndarray], weights) -> list[np.ndarray]:
    """The whole pipeline with GPU schedules: PTX compiled for sm_90 by LLVM's NVPTX
    backend (so every kernel must lower for the GPU) and assembled by NVIDIA's ptxas where
    it is installed (the test extras install it), and the same kernels run by the emulator
    on this CPU (targets/gpu/emulate.py); on a machine with a GPU, test/gpu runs them on
    the device."""
    from tessel.pipelines.tensor import compile_for_gpu
    from tessel.targets.gpu.nvptx import compile_ptx, emit_ptx_module
    from tessel.targets.gpu.ptxas import assemble, find_ptxas

    executable, _ = compile_for_gpu(module, weights, emulate=True, threads=2)
    try:
        ptx = compile_ptx(emit_ptx_module(module))
        if find_ptxas() is not None:
            assemble(ptx)
        return executable.run(inputs)
    finally:
        executable.close()


TARGETS: dict[str, Runner] = {"reference": run_reference, "kernels": run_kernels, "cpu": run_cpu, "gpu": run_gpu}


def _tensor_io(model: onnx.ModelProto) -> bool:
    return all(v.type.HasField("tensor_type") for v in [*model.graph.input, *model.graph.output])


def _exact_inverse_dft(inputs: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> list[np.ndarray]:
    """test_dft_inverse(_opset19): the inverse DFT along axis 1 of the interleaved complex
    input, in float64, rounded once to the stored type."""
    x = inputs[0].astype(np.float64)
    z = np.fft.ifft(x[..., 0] + 1j * x[..., 1], axis=1)
    return [np.stack([z.real, z.imag], -1).astype(expected[0].dtype)]


# Node tests whose stored outputs carry more rounding than their own tolerance allows: the
# inverse DFT's data come from numpy's float32 FFT, 1.9e-7 where the exact value is 0, and
# the tests' atol is 1e-7. They are checked against the op's exact value instead (computed
# in float64 from the inputs), at the test's own tolerance; docs/onnx-coverage.md and the
# README name them.
EXACT_EXPECTED: dict[str, Callable[[Sequence[np.ndarray], Sequence[np.ndarray]], list[np.ndarray]]] = {
    "test_dft_inverse": _exact_inverse_dft,
    "test_dft_inverse_opset19": _exact_inverse_dft,
}


def run_case(case: NodeTest, runner: Runner = run_reference) -> tuple[Outcome, str]:
    """Import, run and compare one node test; UNSUPPORTED carries the importer's message."""
    model = case.model()
    if not _tensor_io(model):
        return Outcome.UNSUPPORTED, "inputs or outputs that are not tensors (sequences, optionals, maps)"
    data_sets = case.data_sets(model)
    names = [i.name for i in model.graph.input]
    bound = static_inputs(model)
    for k, (inputs, expected) in enumerate(data_sets):
        if case.name in EXACT_EXPECTED:
            expected = EXACT_EXPECTED[case.name](inputs, expected)
        feed = dict(zip(names, inputs))
        try:
            result = import_model(model, source=case.name, bind={n: feed[n] for n in bound})
        except TesselError as err:
            return Outcome.UNSUPPORTED, str(err)
        verify(result.module)
        try:
            got = runner(result.module, [feed[n] for n in names if n not in bound], result.weights)
        except DataDependentShape as err:  # a compiled target's documented refusal (README)
            return Outcome.UNSUPPORTED, str(err)
        problem = _mismatch(got, expected, case.rtol, case.atol)
        if problem:
            return Outcome.FAILED, f"data set {k}: {problem}"
    return Outcome.PASSED, ""


def _mismatch(got: Sequence[np.ndarray], expected: Sequence[np.ndarray], rtol: float, atol: float) -> str | None:
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        g, e = np.asarray(g), np.asarray(e)
        if g.shape != e.shape or g.dtype != e.dtype:
            return f"output {i} is {g.dtype}{list(g.shape)}, expected {e.dtype}{list(e.shape)}"
        if e.dtype.kind in "fc" or e.dtype.name == "bfloat16":
            try:
                np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol)
            except AssertionError as err:
                return f"output {i}: " + " ".join(str(err).split())[:300]
        elif not np.array_equal(g, e):
            return f"output {i} differs in {int((g != e).sum())} of {e.size} elements"
    return None


# --------------------------------------------------------------------------- coverage table


def coverage_markdown(results: dict[tuple[str, str], tuple[Outcome, str, set[str]]], command: str) -> str:
    """Per ONNX op and target: how many node tests using it passed, failed, or were not
    accepted by the importer (unsupported is the same on every target)."""
    targets = sorted({t for _, t in results})
    per_op: dict[str, dict[str, Counter[Outcome]]] = defaultdict(lambda: defaultdict(Counter))
    reasons: Counter[str] = Counter()
    blockers: Counter[str] = Counter()
    totals: dict[str, Counter[Outcome]] = defaultdict(Counter)
    tests = {name for name, _ in results}
    for (_name, target), (outcome, detail, ops) in results.items():
        totals[target][outcome] += 1
        for op in ops:
            per_op[op][target][outcome] += 1
        if outcome is Outcome.UNSUPPORTED and target == targets[0]:
            reasons[_reason_class(detail)] += 1
            if (m := re.search(r"operator (\w+) is not supported", detail)) is not None:
                blockers[m.group(1)] += 1
    first = targets[0]
    lines = [
        "# ONNX node-test coverage",
        "",
        f"Generated by `{command}` from the node tests of onnx {onnx.__version__} "
        f"({len(tests)} tests, `_expanded` function variants included), on the targets {', '.join(targets)}.",
        "Do not edit by hand. A test counts toward every operator in its graph.",
        "",
    ]
    for t in targets:
        c = totals[t]
        lines.append(
            f"- **{t}: {c[Outcome.PASSED]} passed, {c[Outcome.FAILED]} failed, {c[Outcome.UNSUPPORTED]} unsupported.**"
        )
    scope = {case.name: out_of_scope(case.model()) for case in load_cases() if case.name in tests}
    in_scope = sorted(name for name, why in scope.items() if why is None)
    lines += [
        "",
        f"In scope (the issue's exclusions: `out_of_scope` in test/conformance/onnx/node_suite.py): "
        f"{len(in_scope)} of {len(tests)} tests.",
        "",
    ]
    for t in targets:
        c = Counter(results[(name, t)][0] for name in in_scope if (name, t) in results)
        lines.append(
            f"- {t}: {c[Outcome.PASSED]} of the {len(in_scope)} in scope passed, {c[Outcome.FAILED]} failed, "
            f"{c[Outcome.UNSUPPORTED]} unsupported."
        )
    header = " | ".join(f"{t} passed | {t} failed" for t in targets)
    lines += ["", f"| operator | {header} | unsupported |", "|---|" + "---:|" * (2 * len(targets) + 1)]
    for op in sorted(per_op, key=lambda o: (-per_op[o][first][Outcome.PASSED], o)):
        cells = " | ".join(f"{per_op[op][t][Outcome.PASSED]} | {per_op[op][t][Outcome.FAILED]}" for t in targets)
        mark = " (CNN core)" if op in CNN_CORE else ""
        lines.append(f"| {op}{mark} | {cells} | {per_op[op][first][Outcome.UNSUPPORTED]} |")
    lines += ["", "## Why tests are unsupported", "", "| reason | tests |", "|---|---:|"]
    lines += [f"| {reason} | {n} |" for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))]
    lines += [
        "",
        "## Operators the importer rejects, by the tests they block",
        "",
        "(the first unsupported operator of each test)",
        "",
        "| operator | tests |",
        "|---|---:|",
    ]
    lines += [f"| {op} | {n} |" for op, n in sorted(blockers.items(), key=lambda kv: (-kv[1], kv[0]))]
    lines += [
        "",
        "## In-scope tests that are not passing, and why",
        "",
        "| test | targets | outcome | reason |",
        "|---|---|---|---|",
    ]
    for name in in_scope:
        bad: dict[tuple[Outcome, str], list[str]] = defaultdict(list)
        for t in targets:
            outcome, detail, _ = results.get((name, t), (Outcome.PASSED, "", set()))
            if outcome is not Outcome.PASSED:
                # the importer's message lists every supported operator: not in a table cell
                line = detail.splitlines()[0].split("; supported operators")[0] if detail else ""
                bad[(outcome, line)].append(t)
        for (outcome, detail), where in bad.items():
            cell = detail.replace("|", "\\|")
            lines.append(f"| {name} | {', '.join(where)} | {outcome.value} | {cell} |")
    return "\n".join(lines) + "\n"


def _reason_class(detail: str) -> str:
    """Group importer messages: 'operator X is not supported' -> one row per cause kind."""
    for key, label in (
        ("is not supported; supported operators", "an operator the importer does not accept"),
        ("element type", "an element type Tessel does not support (string, float8, int4, ...)"),
        ("cast to", "a cast to an element type Tessel does not support"),
        ("not tensors", "non-tensor inputs or outputs (sequences, optionals, maps)"),
        ("operator domain", "an operator outside the default ONNX domain"),
        ("no version of the default", "no default-domain opset (training domain tests)"),
        ("version converter", "an old opset the ONNX version converter cannot upgrade"),
        ("compile-time constant", "a shape-like operand computed at run time"),
        ("training_mode", "training-mode Dropout (random)"),
        ("-D ", "a spatial rank the op does not support"),
    ):
        if key in detail:
            return label
    return " ".join(detail.split())[:120]
