"""A content hash of an ONNX model as given, without serializing it whole.

The model cache finds a model compiled before by this digest before importing anything
(targets/cpu/model_cache.source_key). `SerializeToString` of BERT's 440 MB takes 1.9 s
(protobuf's writer, a copy of every weight), longer than the import it would save. Here
every set field of the model and its graph is hashed by protobuf's reflection: small
fields as their serialized bytes, each initializer's `raw_data` read directly and hashed
in parallel threads (hashlib releases the GIL on large buffers), so the cost is one read
of the weights. Fields are hashed with their names and lengths, so no two different
models share an input to the hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import onnx


def model_digest(model: onnx.ModelProto, threads: int = 2) -> bytes | None:
    """The SHA-256 of `model`'s content; None when a tensor's data lives in an external
    file not loaded into the model (its bytes are not in the proto to hash)."""
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in _tensors(model.graph)):
        return None
    h = hashlib.sha256(b"onnx model digest 1")
    for field, value in model.ListFields():
        if field.name == "graph":
            _graph(h, value, threads)
        else:
            _field(h, field, value)
    return h.digest()


def _tensors(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    """Every tensor of a graph: its initializers and its nodes' tensor attributes, in
    subgraphs too (a Constant's value or an If branch's weights may be external)."""
    yield from graph.initializer
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("t"):
                yield attr.t
            yield from attr.tensors
            if attr.HasField("g"):
                yield from _tensors(attr.g)
            for g in attr.graphs:
                yield from _tensors(g)


def _graph(h: Any, graph: onnx.GraphProto, threads: int) -> None:
    tensors: list[onnx.TensorProto] = []
    for field, value in graph.ListFields():
        if field.name == "initializer":
            tensors = list(value)
        else:
            _field(h, field, value)
    h.update(f"|initializer {len(tensors)}|".encode())
    with ThreadPoolExecutor(max(1, threads)) as pool:
        for digest in pool.map(_tensor, tensors):
            h.update(digest)


def _tensor(t: onnx.TensorProto) -> bytes:
    """A tensor's fields but its raw data, serialized, then the raw data: as a digest."""
    h = hashlib.sha256()
    rest = onnx.TensorProto()
    for field, value in t.ListFields():
        if field.name != "raw_data":
            _copy(rest, field, value)
    meta = rest.SerializeToString()
    h.update(len(meta).to_bytes(8, "little") + meta)
    h.update(t.raw_data)
    return h.digest()


def _repeated(field: Any) -> bool:
    is_repeated = getattr(field, "is_repeated", None)  # (protobuf >= 6.31; `label` before)
    return bool(is_repeated) if is_repeated is not None else field.label == field.LABEL_REPEATED


def _copy(target: Any, field: Any, value: Any) -> None:
    if _repeated(field):
        getattr(target, field.name).extend(value)
    elif field.message_type is not None:
        getattr(target, field.name).CopyFrom(value)
    else:
        setattr(target, field.name, value)


def _field(h: Any, field: Any, value: Any) -> None:
    items: Iterable[Any] = value if _repeated(field) else [value]
    parts = [v.SerializeToString() if field.message_type is not None else repr(v).encode() for v in items]
    h.update(f"|{field.name} {len(parts)}|".encode())
    for part in parts:
        h.update(len(part).to_bytes(8, "little") + part)
