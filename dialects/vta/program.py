"""A VTA program: the instruction stream, the micro-op table and the DRAM it runs against.

DRAM is one byte-addressed space, as on the board: tensors, the micro-op table and the
instruction stream's data all live in it at offsets aligned to the largest element (a 16x16
weight block), so every `dram_base` is a whole number of the addressed buffer's elements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .config import VtaConfig
from .isa import Insn, Mem, MemInsn, Uop, decode_uop, encode_uop

ALIGN = 256


@dataclass(frozen=True)
class Tensor:
    """A named tensor in DRAM: its byte offset, packed shape and numpy dtype."""

    name: str
    offset: int
    shape: tuple[int, ...]
    dtype: str

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * np.dtype(self.dtype).itemsize

    def base(self, elem_bytes: int) -> int:
        """The tensor's address in elements of `elem_bytes` (what `dram_base` holds)."""
        assert self.offset % elem_bytes == 0
        return self.offset // elem_bytes


@dataclass
class Program:
    cfg: VtaConfig
    insns: list[Insn] = field(default_factory=list)
    uops: list[Uop] = field(default_factory=list)
    tensors: dict[str, Tensor] = field(default_factory=dict)
    dram_bytes: int = 0
    uop_tensor: str = "uops"
    notes: list[str] = field(default_factory=list)

    def alloc(self, name: str, shape: tuple[int, ...], dtype: str) -> Tensor:
        t = Tensor(name, self.dram_bytes, tuple(shape), dtype)
        self.tensors[name] = t
        self.dram_bytes += -(-t.nbytes // ALIGN) * ALIGN
        return t

    def place_uops(self) -> Tensor:
        """Allocate the micro-op table once all kernels are known."""
        return self.alloc(self.uop_tensor, (max(len(self.uops), 1),), "uint32")

    def dram(self) -> np.ndarray:
        """A zeroed DRAM image with the micro-op table written in."""
        mem = np.zeros(max(self.dram_bytes, ALIGN), dtype=np.uint8)
        if self.uop_tensor in self.tensors:
            words = np.array([encode_uop(u, self.cfg) for u in self.uops] or [0], dtype=np.uint32)
            self.write(mem, self.uop_tensor, words)
        return mem

    def write(self, mem: np.ndarray, name: str, value: np.ndarray) -> None:
        t = self.tensors[name]
        data = np.ascontiguousarray(value, dtype=t.dtype).reshape(-1).view(np.uint8)
        if data.size != t.nbytes:
            raise ValueError(f"{name}: expected {t.shape} {t.dtype}, got {value.shape} {value.dtype}")
        mem[t.offset : t.offset + t.nbytes] = data

    def read(self, mem: np.ndarray, name: str) -> np.ndarray:
        t = self.tensors[name]
        return mem[t.offset : t.offset + t.nbytes].view(t.dtype).reshape(t.shape).copy()

    def uop_words(self) -> np.ndarray:
        return np.array([encode_uop(u, self.cfg) for u in self.uops], dtype=np.uint32)

    def decoded_uops(self, words: np.ndarray) -> list[Uop]:
        return [decode_uop(int(w), self.cfg) for w in words]

    def counts(self) -> dict[str, int]:
        """Instructions by kind, as the listing's summary and the benchmark report them."""
        out: dict[str, int] = {}
        for i in self.insns:
            key = i.opcode.name.lower()
            if isinstance(i, MemInsn):
                key += "." + i.memory_type.name.lower()
            out[key] = out.get(key, 0) + 1
        return out


def elem_bytes(cfg: VtaConfig, mem: Mem) -> int:
    return {
        Mem.UOP: 4,
        Mem.INP: cfg.inp_elem_bytes,
        Mem.WGT: cfg.wgt_elem_bytes,
        Mem.ACC: cfg.acc_elem_bytes,
        Mem.OUT: cfg.out_elem_bytes,
    }[mem]
