"""VTA's hardware parameters: the `vta_config.json` LOG_* knobs and everything derived from them.

Everything downstream (instruction field widths, SRAM depths, tiling limits, peak throughput)
is computed here from the log2 knobs, the way `hw_spec_const.h` derives them, so a non-default
configuration changes the encoding and the compiler consistently. The presets are the boards
VTA shipped for: PYNQ-Z1 (Zynq-7020, 100 MHz fabric clock, 64-bit AXI), the TVM paper's
200 MHz PYNQ build, and Ultra96 (333 MHz, 128-bit AXI).

The timing knobs (DRAM latency, per-row burst overhead, pipeline depths) are not part of the
hardware spec: they are the cycle model's assumptions, stated in the README.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Timing:
    """The cycle model's assumptions (cycles of the fabric clock)."""

    dram_latency: int = 64  # AXI read round trip before the first beat of a LOAD/STORE
    row_overhead: int = 2  # extra cycles per 2-D row (each row is its own burst)
    gemm_ii: int = 1  # GEMM micro-op initiation interval (HLS pipelined at II=1)
    alu_ii: int = 2  # ALU micro-op initiation interval (II=2 in the HLS design)
    pipeline_depth: int = 8  # fill/drain of the GEMM and ALU pipelines per instruction
    fetch_cycles: int = 2  # instruction fetch/decode per instruction (128 bits over the bus)


@dataclass(frozen=True)
class VtaConfig:
    """The log2 knobs of `vta_config.json`; derived quantities are properties."""

    name: str = "pynq"
    log_inp_width: int = 3
    log_wgt_width: int = 3
    log_acc_width: int = 5
    log_batch: int = 0
    log_block: int = 4
    log_uop_buff_size: int = 15
    log_inp_buff_size: int = 15
    log_wgt_buff_size: int = 18
    log_acc_buff_size: int = 17
    clock_mhz: float = 100.0
    log_bus_width: int = 6  # AXI data width in bits, log2
    timing: Timing = field(default_factory=Timing)

    # ------------------------------------------------------------------ element sizes

    @property
    def batch(self) -> int:
        return 1 << self.log_batch

    @property
    def block(self) -> int:
        """BLOCK_IN = BLOCK_OUT: the GEMM core is (batch x block) . (block x block)^T."""
        return 1 << self.log_block

    @property
    def inp_bits(self) -> int:
        return 1 << self.log_inp_width

    @property
    def wgt_bits(self) -> int:
        return 1 << self.log_wgt_width

    @property
    def acc_bits(self) -> int:
        return 1 << self.log_acc_width

    @property
    def inp_elem_bytes(self) -> int:
        return self.batch * self.block * self.inp_bits // 8

    @property
    def wgt_elem_bytes(self) -> int:
        return self.block * self.block * self.wgt_bits // 8

    @property
    def acc_elem_bytes(self) -> int:
        return self.batch * self.block * self.acc_bits // 8

    @property
    def out_elem_bytes(self) -> int:
        return self.batch * self.block * self.inp_bits // 8

    UOP_BYTES = 4
    INSN_BYTES = 16

    # ------------------------------------------------------------------ buffer depths (elements)

    @property
    def uop_depth(self) -> int:
        return (1 << self.log_uop_buff_size) // self.UOP_BYTES

    @property
    def inp_depth(self) -> int:
        return (1 << self.log_inp_buff_size) // self.inp_elem_bytes

    @property
    def wgt_depth(self) -> int:
        return (1 << self.log_wgt_buff_size) // self.wgt_elem_bytes

    @property
    def acc_depth(self) -> int:
        return (1 << self.log_acc_buff_size) // self.acc_elem_bytes

    @property
    def out_depth(self) -> int:
        return self.acc_depth

    def log2(self, depth: int) -> int:
        return depth.bit_length() - 1

    # ------------------------------------------------------------------ throughput

    @property
    def bus_bytes(self) -> int:
        """Bytes per cycle on the AXI bus."""
        return (1 << self.log_bus_width) // 8

    @property
    def macs_per_cycle(self) -> int:
        return self.batch * self.block * self.block

    @property
    def peak_gops(self) -> float:
        """Two ops (multiply, add) per MAC per cycle."""
        return 2 * self.macs_per_cycle * self.clock_mhz / 1e3

    @property
    def ridge_ops_per_byte(self) -> float:
        """The roofline's ridge point: peak ops per cycle over bus bytes per cycle."""
        return 2 * self.macs_per_cycle / self.bus_bytes

    def describe(self) -> str:
        return (
            f"{self.name}: {self.batch}x{self.block}x{self.block} GEMM at {self.clock_mhz:g} MHz "
            f"({self.peak_gops:.1f} GOPS peak), {8 * self.bus_bytes}-bit bus; "
            f"inp {self.inp_depth}x{self.inp_elem_bytes} B, wgt {self.wgt_depth}x{self.wgt_elem_bytes} B, "
            f"acc {self.acc_depth}x{self.acc_elem_bytes} B, uop {self.uop_depth}x4 B"
        )


PRESETS: dict[str, VtaConfig] = {
    # The default vta_config.json, which is the PYNQ sample: 100 MHz, 64-bit AXI.
    "pynq": VtaConfig(),
    # The TVM paper's PYNQ build ran the same core at 200 MHz.
    "pynq200": VtaConfig(name="pynq200", clock_mhz=200.0),
    # Ultra96 / ZCU104 packages: 333 MHz, 128-bit AXI.
    "ultra96": VtaConfig(name="ultra96", clock_mhz=333.0, log_bus_width=7),
}

_JSON_KEYS = {
    "LOG_INP_WIDTH": "log_inp_width",
    "LOG_WGT_WIDTH": "log_wgt_width",
    "LOG_ACC_WIDTH": "log_acc_width",
    "LOG_BATCH": "log_batch",
    "LOG_BLOCK": "log_block",
    "LOG_UOP_BUFF_SIZE": "log_uop_buff_size",
    "LOG_INP_BUFF_SIZE": "log_inp_buff_size",
    "LOG_WGT_BUFF_SIZE": "log_wgt_buff_size",
    "LOG_ACC_BUFF_SIZE": "log_acc_buff_size",
    "LOG_BUS_WIDTH": "log_bus_width",
    "CLOCK_MHZ": "clock_mhz",
}


class ConfigError(ValueError):
    pass


def preset(name: str) -> VtaConfig:
    if name not in PRESETS:
        raise ConfigError(f"unknown VTA preset '{name}' (known: {', '.join(PRESETS)})")
    return PRESETS[name]


def load_config(path: str | Path) -> VtaConfig:
    """A `vta_config.json`-style file: LOG_* keys (TARGET names a preset to start from)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the VTA config: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a VTA config is a JSON object of LOG_* keys")
    base = preset(str(data.pop("TARGET", "pynq")))
    changes: dict[str, Any] = {"name": Path(path).stem}  # VtaConfig field -> a checked number
    for key, value in data.items():
        if key not in _JSON_KEYS:
            raise ConfigError(f"{path}: unknown key '{key}' (known: {', '.join(_JSON_KEYS)}, TARGET)")
        if not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"{path}: '{key}' must be a non-negative number, got {value!r}")
        changes[_JSON_KEYS[key]] = value
    config = replace(base, **changes)
    check(config, str(path))
    return config


def check(config: VtaConfig, where: str = "VTA config") -> None:
    """Reject configurations whose instruction fields would not fit the 128-bit encoding."""
    if config.log_batch != 0:
        raise ConfigError(f"{where}: LOG_BATCH={config.log_batch}: only batch 1 is supported")
    if config.inp_bits != 8 or config.wgt_bits != 8 or config.acc_bits != 32:
        raise ConfigError(f"{where}: only int8 inputs/weights with int32 accumulators are supported")
    for f in fields(config):
        if f.name.startswith("log_") and getattr(config, f.name) > 20:
            raise ConfigError(f"{where}: {f.name.upper()}={getattr(config, f.name)} is out of range")
