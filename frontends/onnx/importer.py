"""ONNX -> tg: one func.func per model, one or a few tg ops per node, nothing dropped.

    result = import_model(load_model("resnet18.onnx"))
    result.module      # builtin.module { func.func @main(...) { tg.conv2d ... } }
    result.weights     # initializer name -> numpy array, for tg.weight ops

The importer needs static shapes: graph inputs with symbolic dimensions must be given
concrete shapes (`input_shapes`), and inputs that feed shape-like operands (a Reshape's
shape...) must be bound to values (`bind`). Unsupported operators, element types and
attribute values are errors naming the node, op type and opset.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import onnx
import onnx.shape_inference
import onnx.version_converter
from google.protobuf.message import DecodeError
from onnx import numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import VerifyException

from tessel.dialects import tg
from tessel.frontends.onnx import converters  # noqa: F401  (registers every converter)
from tessel.frontends.onnx.context import CONVERTERS, GraphState, NodeContext, constant_value, value_name
from tessel.ir import dtypes
from tessel.ir.diagnostics import TesselError
from tessel.ir.limits import check_shape
from tessel.ir.signature import NAME_ATTR
from tessel.ir.weights import WEIGHTS_ATTR

MIN_OPSET = 13
# Results with at most this many elements are evaluated at import time when their operands
# are known (shape arithmetic); larger ones are left to the graph passes.
FOLD_LIMIT = 4096
DEFAULT_DOMAINS = ("", "ai.onnx")


@dataclass
class ImportResult:
    module: ModuleOp
    weights: dict[str, np.ndarray]


def load_model(path: str) -> onnx.ModelProto:
    """Read and check an ONNX file; a missing, corrupt or invalid file is a TesselError."""
    try:
        model = onnx.load(path)
    except FileNotFoundError as err:
        raise TesselError(f"cannot read {path}: {err.strerror or 'no such file'}") from err
    except IsADirectoryError:
        raise TesselError(f"cannot read {path}: it is a directory, not an ONNX file") from None
    except onnx.checker.ValidationError as err:  # external data that cannot be loaded
        first = " ".join(str(err).split()) or type(err).__name__
        raise TesselError(f"{path}: cannot load the model's external data: {first}") from err
    except (DecodeError, ValueError, OSError, RuntimeError) as err:
        raise TesselError(f"{path} is not a valid ONNX file ({type(err).__name__}: {err})".rstrip(": )") + ")") from err
    if not model.graph.node and not model.graph.output:
        raise TesselError(f"{path} is not a valid ONNX file (it holds no graph)")
    if not model.graph.output:
        raise TesselError(f"{path}: the graph declares no outputs, so there is nothing to compute")
    _check_defined_before_use(model.graph, path)
    newest = onnx.defs.onnx_opset_version()
    for entry in model.opset_import:
        if entry.domain in DEFAULT_DOMAINS and entry.version > newest:
            raise TesselError(
                f"{path}: opset {entry.version} is newer than the newest this ONNX ({onnx.__version__}) knows, {newest}"
            )
    try:
        # the file, not the loaded proto: checking a proto serializes it first (0.13 s of
        # ResNet-18's 45 MB, against 0.06 s to check the file)
        onnx.checker.check_model(path)
    except onnx.checker.ValidationError as err:
        first = str(err).strip().splitlines()[0]
        raise TesselError(f"{path} is not a valid ONNX model: {first}") from err
    return model


def _check_defined_before_use(graph: onnx.GraphProto, path: str) -> None:
    """Every node input is a graph input, an initializer or an earlier node's output. The
    checker says only "must be topologically sorted"; this names the node and the value,
    and tells a cycle (defined later) from a value nothing defines."""
    defined = {vi.name for vi in graph.input} | {t.name for t in graph.initializer} | {""}
    produced_later = {name for node in graph.node for name in node.output}
    for index, node in enumerate(graph.node):
        for name in node.input:
            if name in defined:
                continue
            where = f"{path}: node '{node.name or f'#{index}'}' ({node.op_type})"
            if name in produced_later:
                raise TesselError(
                    f"{where} reads '{name}' before any node produces it: the graph has a cycle or is not in topological order"
                )
            raise TesselError(f"{where} reads '{name}', which no graph input, initializer or node defines")
        defined.update(node.output)


def opset_of(model: onnx.ModelProto) -> int:
    for entry in model.opset_import:
        if entry.domain in DEFAULT_DOMAINS:
            return entry.version
    raise TesselError("the model imports no version of the default ONNX operator set")


def supported_ops() -> list[str]:
    return sorted(CONVERTERS)


def static_inputs(model: onnx.ModelProto) -> list[str]:
    """Graph inputs whose values operands that must be compile-time constants depend on
    (bind them): inputs that feed such an operand directly or through other nodes (a
    window function's size through Cast into Range), except through nodes that read only
    their input's shape (Shape, Size). An old model is asked about after the upgrade that
    import_model applies (Upsample-9's scales are Resize-13's)."""
    try:
        if opset_of(model) < MIN_OPSET:
            model = _upgrade(model, opset_of(model), "model")
    except TesselError:
        pass  # import_model reports it
    initializers = {t.name for t in model.graph.initializer}
    graph_inputs = {i.name for i in model.graph.input} - initializers
    producer = {name: node for node in model.graph.node for name in node.output if name}
    wanted: list[str] = []
    seen: set[str] = set()
    work: list[str] = []
    for node in model.graph.node:
        info = CONVERTERS.get(node.op_type)
        work.extend(node.input[i] for i in (info.static_inputs if info else ()) if i < len(node.input))
    while work:
        name = work.pop(0)
        if not name or name in seen:
            continue
        seen.add(name)
        if name in graph_inputs:
            wanted.append(name)
        elif (node := producer.get(name)) is not None and node.op_type not in SHAPE_ONLY:
            work.extend(node.input)
    return wanted


# Operators whose result depends on their input's shape only, never on its values.
SHAPE_ONLY = ("Shape", "Size")


def _tensor_type(vi: onnx.ValueInfoProto, shape_override: Sequence[int] | None, where: str) -> TensorType:
    """The static tensor type of a graph value; `shape_override` may only fill symbolic dims."""
    tt = vi.type.tensor_type
    if not vi.type.HasField("tensor_type"):
        raise TesselError(f"{where} '{vi.name}' is not a tensor ({vi.type.WhichOneof('value')})")
    try:
        np_dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        element = dtypes.from_numpy(np_dtype)
    except (KeyError, TypeError, ValueError) as err:
        name = onnx.TensorProto.DataType.Name(tt.elem_type)
        raise TesselError(f"{where} '{vi.name}' has element type {name}, which Tessel does not support") from err
    if shape_override is not None:
        declared = (
            [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim] if tt.HasField("shape") else None
        )
        given = list(shape_override)
        if declared is not None and (
            len(declared) != len(given) or any(d is not None and d != g for d, g in zip(declared, given))
        ):
            shown = ["?" if d is None else d for d in declared]
            raise TesselError(f"{where} '{vi.name}' is declared with shape {shown}; --input-shape gives {given}")
        check_shape(given, f"{where} '{vi.name}'")
        return TensorType(element, given)
    if not tt.HasField("shape"):
        raise TesselError(f"{where} '{vi.name}' has no shape; give one with --input-shape {vi.name}=D0,D1,...")
    dims = []
    for d in tt.shape.dim:
        if not d.HasField("dim_value"):
            sym = d.dim_param or "?"
            raise TesselError(
                f"{where} '{vi.name}' has a dynamic dimension '{sym}'; give a static shape with "
                f"--input-shape {vi.name}=D0,D1,..."
            )
        if d.dim_value < 0:
            raise TesselError(f"{where} '{vi.name}' has a negative dimension {d.dim_value}")
        dims.append(d.dim_value)
    check_shape(dims, f"{where} '{vi.name}'")
    return TensorType(element, dims)


def import_model(
    model: onnx.ModelProto,
    *,
    source: str = "model.onnx",
    bind: Mapping[str, np.ndarray] | None = None,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    weights_file: str | None = None,
) -> ImportResult:
    """Convert a checked ONNX model to a tg module with entry function @main."""
    bind = dict(bind or {})
    input_shapes = dict(input_shapes or {})
    opset = opset_of(model)
    if opset < MIN_OPSET:
        model = _upgrade(model, opset, source)
        opset = MIN_OPSET
    graph = model.graph
    onnx_types = _onnx_inferred_types(model)
    initializers = {t.name: t for t in graph.initializer}
    inputs = [vi for vi in graph.input if vi.name not in initializers]
    for name in [*bind, *input_shapes]:
        if name not in {vi.name for vi in inputs}:
            raise TesselError(
                f"{source}: the model has no input '{name}' (inputs: {', '.join(vi.name for vi in inputs)})"
            )

    runtime_inputs = [vi for vi in inputs if vi.name not in bind]
    arg_types = [_tensor_type(vi, input_shapes.get(vi.name), f"{source}: input") for vi in runtime_inputs]
    block = Block(arg_types=arg_types)
    state = GraphState(block, convert_node=_convert_node)
    for vi, arg in zip(runtime_inputs, block.args):
        arg.name_hint = value_name(vi.name)
        state.values[vi.name] = arg

    for name, tensor in initializers.items():
        _define_constant(state, name, _to_array(tensor, f"{source}: initializer '{name}'"), source)
    for vi in inputs:
        if vi.name in bind:
            declared = _tensor_type(vi, input_shapes.get(vi.name), f"{source}: input")
            array = np.asarray(bind[vi.name])
            if array.shape != declared.get_shape() or dtypes.from_numpy(array.dtype) != declared.element_type:
                raise TesselError(
                    f"{source}: the value bound to '{vi.name}' is {array.dtype}{list(array.shape)}, the input is {declared}"
                )
            _define_constant(state, vi.name, array, source)

    for index, node in enumerate(graph.node):
        _convert_node(state, node, index, opset, source)
        for name in node.output:
            if name and name in onnx_types:
                _check_declared(onnx_types[name], state.values[name], source, "ONNX shape inference gives")

    results: list[SSAValue] = []
    for vi in graph.output:
        if vi.name not in state.values:
            raise TesselError(f"{source}: graph output '{vi.name}' is not produced by any node")
        value = state.values[vi.name]
        _check_declared(vi, value, source, "the model declares")
        results.append(value)
    block.add_op(func.ReturnOp(*results))

    fn = func.FuncOp("main", ([a.type for a in block.args], [r.type for r in results]), Region(block))
    region_dce(fn.body)  # shape computations folded into static operands leave dead ops
    fn.arg_attrs = _names_attr(vi.name for vi in runtime_inputs)
    fn.res_attrs = _names_attr(vi.name for vi in graph.output)
    module = ModuleOp([fn])
    used = {op.weight_name for op in fn.walk() if isinstance(op, tg.WeightOp)}
    weights = {name: array for name, array in state.weights.items() if name in used}
    if weights and weights_file is not None:
        module.attributes[WEIGHTS_ATTR] = StringAttr(weights_file)
    return ImportResult(module, weights)


def _upgrade(model: onnx.ModelProto, opset: int, source: str) -> onnx.ModelProto:
    """Older opsets are converted with ONNX's own version converter, which keeps semantics."""
    for index, node in enumerate(model.graph.node):
        if node.op_type == "Scan" and opset < 9:  # the converter squeezes its batch axis out of the graph's inputs
            raise TesselError(
                "Scan-8 (with a batch axis and sequence_lens) is not supported: ONNX's version converter "
                "changes the graph's input shapes when it rewrites it as Scan-9",
                f"{source}: node '{node.name or f'#{index}'}' (Scan, opset {opset})",
            )
    try:
        return onnx.version_converter.convert_version(model, MIN_OPSET)
    except Exception as err:  # the converter raises bare RuntimeErrors and others
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise TesselError(
            f"{source}: opset {opset} is older than {MIN_OPSET} and ONNX's version converter could not upgrade it: {first}"
        ) from err


def _names_attr(names: Iterable[str]) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr([DictionaryAttr({NAME_ATTR: StringAttr(n)}) for n in names])


def _to_array(tensor: onnx.TensorProto, where: str) -> np.ndarray:
    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        raise TesselError(f"{where} uses external data; load the model with its data files beside it")
    try:
        return numpy_helper.to_array(tensor)
    except Exception as err:  # onnx raises bare Exceptions for odd types
        raise TesselError(f"{where} cannot be read: {err}") from err


def _define_constant(state: GraphState, name: str, array: np.ndarray, where: str) -> None:
    state.values[name] = constant_value(state, array, name, f"{where}: '{name}'")


def _convert_node(state: GraphState, node: onnx.NodeProto, index: int, opset: int, source: str) -> None:
    label = node.name or f"#{index}"
    where = f"{source}: node '{label}' ({node.op_type}, opset {opset})"
    if node.domain not in DEFAULT_DOMAINS:
        raise TesselError(f"operator domain '{node.domain}' is not supported (only the default ONNX domain)", where)
    info = CONVERTERS.get(node.op_type)
    if info is None:
        raise TesselError(
            f"operator {node.op_type} is not supported; supported operators: {', '.join(supported_ops())}", where
        )
    for name in node.input:
        if name and name not in state.values:
            raise TesselError(f"input '{name}' is not defined before this node", where)
    ctx = NodeContext(node, index, opset, state, where)
    before = state.block.last_op
    try:
        outputs = list(info.fn(ctx))
    except VerifyException as err:  # a tg op built from the node's attributes was refused
        raise TesselError(" ".join(str(err).split()), where) from None
    _fold_new_ops(state, before)
    for i, name in enumerate(node.output):
        if not name:
            continue
        value = outputs[i] if i < len(outputs) else None
        if value is None:
            raise TesselError(f"output #{i} '{name}' is not supported", where)
        state.values[name] = value


def _fold_new_ops(state: GraphState, before: Operation | None) -> None:
    """Evaluate the node's new ops whose operands are all known, so that shape computations
    inside the graph (Shape -> Slice -> Concat -> Reshape) yield the static operands later
    nodes need. Only small results are folded; the ops stay in the IR until DCE."""
    op = before.next_op if before is not None else state.block.first_op
    while op is not None:
        small = all(isinstance(r.type, TensorType) and math.prod(r.type.get_shape()) <= FOLD_LIMIT for r in op.results)
        if small and op.results and op.results[0] not in state.known and all(o in state.known for o in op.operands):
            values = state.folder().run_op(op, tuple(state.known[o] for o in op.operands))
            state.known.update(zip(op.results, values))
        op = op.next_op


def _onnx_inferred_types(model: onnx.ModelProto) -> dict[str, onnx.ValueInfoProto]:
    """Types of intermediate values per ONNX's shape inference (with constant propagation),
    used to cross-check every type the importer computes; empty if inference fails."""
    try:
        inferred = onnx.shape_inference.infer_shapes(_without_large_weights(model), data_prop=True)
    except Exception:  # inference is a cross-check only; tg's own verifiers decide
        return {}
    return {vi.name: vi for vi in inferred.graph.value_info}


# Initializers with more elements than this reach shape inference as typed inputs: it needs
# their shapes, and the values only of the small (shape) tensors it propagates.
_INFERENCE_VALUE_LIMIT = 64


def _without_large_weights(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with each large initializer declared as a typed graph input instead.

    onnx's shape inference serializes the whole model first: for BERT that is 440 MB of
    weights copied to compute types that depend only on their shapes."""
    graph = model.graph
    small = [t for t in graph.initializer if math.prod(t.dims) <= _INFERENCE_VALUE_LIMIT]
    if len(small) == len(graph.initializer):
        return model
    kept = {t.name for t in small}
    large = [t for t in graph.initializer if t.name not in kept]
    light = onnx.ModelProto()
    light.ir_version = model.ir_version
    light.opset_import.extend(model.opset_import)
    light.functions.extend(model.functions)
    g = light.graph
    g.name = graph.name
    g.node.extend(graph.node)
    declared = {i.name for i in graph.input}
    g.input.extend(graph.input)
    g.input.extend(
        onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in large if t.name not in declared
    )
    g.output.extend(graph.output)
    g.value_info.extend(graph.value_info)
    g.initializer.extend(small)
    g.sparse_initializer.extend(graph.sparse_initializer)
    return light


def _check_declared(vi: onnx.ValueInfoProto, value: SSAValue, source: str, who: str) -> None:
    """A value's static type according to ONNX must be the type the importer computed."""
    if not vi.type.HasField("tensor_type"):
        return
    t = value.type
    assert isinstance(t, TensorType)
    tt = vi.type.tensor_type
    if tt.elem_type:
        try:
            declared = dtypes.from_numpy(onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type))
        except (KeyError, TypeError, ValueError):
            declared = None
        if declared is not None and declared != t.element_type:
            raise TesselError(f"{source}: for '{vi.name}' {who} {declared} but Tessel computes {t.element_type}")
    if tt.HasField("shape"):
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
        shape = t.get_shape()  # a data-dependent dim (tg.nonzero's count) is unknown until run time
        if len(dims) != len(shape) or any(d is not None and s != DYNAMIC_INDEX and d != s for d, s in zip(dims, shape)):
            shown = ["?" if s == DYNAMIC_INDEX else s for s in shape]
            raise TesselError(f"{source}: for '{vi.name}' {who} shape {dims} but Tessel computes {shown}")
