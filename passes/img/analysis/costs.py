"""The platform model: what a stage costs on a node platform, what a link costs per bit.

Work is counted in *operations per output frame*, from the IR: a map or stencil costs its
body's operations (constants excluded) per output element; a reduction one op per input
element, a scan two; a table lookup one per output element; an average downsample one per input element and copies (nearest,
upsample, crop) one per output element; a remap four (address arithmetic and the gather);
a dense layer two per multiply-add; an encoder its declared ops per input pixel; a gate one
decision per frame. A platform turns ops into energy (pJ/op) and time (ops/s x units); a
link turns bits into energy (nJ/bit) and bounds the bit rate (Gb/s).

Every constant lives in a JSON file with the source or the assumption behind it
(examples/img/camera/platforms.json): the IISWC'17 paper's per-stage tables were not
available to us, so the numbers are order-of-magnitude values from public datasheets and
the literature, stated as such, and every study reports how its conclusion depends on them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects import arith
from xdsl.ir import Operation

from tessel.dialects import img
from tessel.dialects.img.types import ImageType
from tessel.ir.diagnostics import TesselError

# The shipped platform model, package data (examples/img/camera/platforms.json links to it).
DEFAULT_PLATFORMS = Path(__file__).with_name("platforms.json")


@dataclass(frozen=True)
class Platform:
    name: str
    pj_per_op: float
    ops_per_s: float
    units: int = 1
    source: str = ""

    @property
    def capacity(self) -> float:
        return self.ops_per_s * self.units


@dataclass(frozen=True)
class Link:
    name: str
    gbps: float
    nj_per_bit: float
    source: str = ""


@dataclass(frozen=True)
class Model:
    platforms: dict[str, Platform]
    links: dict[str, Link]

    def platform(self, name: str) -> Platform:
        if name not in self.platforms:
            raise TesselError(f"unknown platform '{name}' (the model has {', '.join(self.platforms)})")
        return self.platforms[name]

    def link(self, name: str) -> Link:
        if name not in self.links:
            raise TesselError(f"unknown link '{name}' (the model has {', '.join(self.links)})")
        return self.links[name]


def load_model(path: str | Path) -> Model:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise TesselError(f"{path}: cannot read the platform model: {e}") from None

    def entries(key: str, cls: type, fields: tuple[str, ...]) -> dict:
        out = {}
        for name, spec in data.get(key, {}).items():
            missing = [f for f in fields if f not in spec]
            if missing:
                raise TesselError(f"{path}: {key}.{name} needs {', '.join(missing)}")
            values = {f: spec[f] for f in fields}
            if any(not isinstance(v, int | float) or v < 0 for v in values.values()):
                raise TesselError(f"{path}: {key}.{name}: {', '.join(fields)} must be non-negative numbers")
            out[name] = cls(
                name,
                **values,
                source=str(spec.get("source", "")),
                **({"units": int(spec.get("units", 1))} if cls is Platform else {}),
            )
        return out

    return Model(
        entries("platforms", Platform, ("pj_per_op", "ops_per_s")), entries("links", Link, ("gbps", "nj_per_bit"))
    )


def body_ops(op: Operation) -> int:
    return sum(1 for o in op.regions[0].block.ops if not isinstance(o, arith.ConstantOp) and o.name != "img.yield")


def ops_per_frame(op: Operation) -> float:
    """Operations to produce one output frame of `op` (0 for sources, sinks, links)."""

    def elems(t) -> int:  # noqa: ANN001
        return t.pixels * t.channels.data if isinstance(t, ImageType) else 0

    out = elems(op.results[0].type) if op.results else 0
    first = elems(op.operands[0].type) if op.operands else 0
    if isinstance(op, img.MapOp | img.StencilOp):
        return body_ops(op) * out
    if isinstance(op, img.ReduceOp):
        return first
    if isinstance(op, img.ScanOp):
        return 2 * first
    if isinstance(op, img.DownsampleOp):
        return first if op.average else out
    if isinstance(op, img.LutOp):
        return out
    if isinstance(op, img.UpsampleOp | img.CropOp | img.ExtractOp | img.MergeOp):
        return out
    if isinstance(op, img.RemapOp):
        return 4 * out
    if isinstance(op, img.DenseOp):
        return 2 * op.macs
    if isinstance(op, img.EncodeOp):
        return op.ops_per_pixel.value.data * first
    if isinstance(op, img.GateOp):
        return 1
    return 0


def output_bits(op: Operation) -> float:
    """Bits per output frame, the encoder's compression included."""
    if not op.results or not isinstance(op.results[0].type, ImageType):
        return 0.0
    b = float(op.results[0].type.bits)
    if isinstance(op, img.EncodeOp):
        b *= op.ratio.value.data
    return b
