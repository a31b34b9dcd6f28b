"""The x86-64 CPU the code is compiled for: the host, or one named with `--mcpu`.

Everything that depends on the CPU reads it from here: the default schedules' vector
register (`vector_bits`) and cache tiles (`l1d_bytes`, `l2_bytes`), the byte dot
products' instruction (`dot4_lanes`), LLVM's target machine (`cpu`, `features`), the
object cache's key and a saved model's manifest. The host is what LLVM detects (its caches
what the kernel describes). A named CPU is one of `KNOWN`: LLVM's processor name (instruction
scheduling, tuning) with exactly the instruction-set features the table lists, so that the
code never uses an instruction the manifest does not name (`runtime/artefact.check_machine`
refuses a saved model on a CPU lacking one). `mcpu=x86-64-v3` on a build machine with AVX-512
gives a model that runs on any AVX2 server; `mcpu=sapphirerapids` shows, on a Zen, the code
an Intel server would get (`tessel-translate --target cpu --opt mcpu=... --opt form=asm`).

The current target is a context variable (`use`), so the passes and emitters below the
tools need no extra parameter; threads compiling modules are handed the target explicitly.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import llvmlite.binding as llvm

from tessel.ir.diagnostics import TesselError

# The float -> bfloat16 conversions (vcvtneps2bf16: AVX512-BF16, and VEX-encoded in
# AVX-NE-CONVERT) flush subnormal results to zero whatever MXCSR says: with them LLVM lowers
# every fptrunc to bfloat16 to that instruction and sigmoid(-91) in bfloat16 came out 0
# instead of 2.76e-40 on a Zen 5. Without them the conversion is the round-to-nearest-even
# bit arithmetic of llvm_modules.SUPPORT, which keeps subnormals (as numpy's ml_dtypes does).
FLUSHING_CONVERSIONS = ("avx512bf16", "avxneconvert")

# x86-64's baseline, which every target keeps (LLVM enables it for any x86-64 processor)
_BASELINE = frozenset({"64bit", "cmov", "cx8", "fxsr", "mmx", "sse", "sse2", "x87"})

_V2 = ("cx16", "sahf", "popcnt", "sse3", "ssse3", "sse4.1", "sse4.2", "crc32")
_V3 = (*_V2, "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave")
_AVX512 = ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl")
_ICELAKE_AVX512 = ("avx512vbmi", "avx512vbmi2", "avx512ifma", "avx512bitalg", "avx512vpopcntdq", "gfni", "vaes")
_INTEL = (*_V3, "aes", "pclmul", "fsgsbase", "rdrnd", "xsaveopt", "adx", "rdseed", "prfchw")
_SKX = (*_INTEL, *_AVX512, "clflushopt", "clwb", "xsavec", "xsaves")
_ICX = (*_SKX, "avx512vnni", *_ICELAKE_AVX512, "vpclmulqdq", "sha", "rdpid")
_SPR = (*_ICX, "avx512bf16", "avx512fp16", "avxvnni", "amx-tile", "amx-int8", "amx-bf16")
_ZEN2 = (
    *_V3,
    *("aes", "pclmul", "fsgsbase", "rdrnd", "xsaveopt", "adx", "rdseed", "prfchw", "clflushopt"),
    *("clwb", "clzero", "rdpid", "sha", "sse4a", "xsavec", "xsaves"),
)
_ZEN3 = (*_ZEN2, "vaes", "vpclmulqdq")
_ZEN4 = (*_ZEN3, *_AVX512, *_ICELAKE_AVX512, "avx512vnni", "avx512bf16")

# LLVM processor name -> the instruction-set features Tessel compiles for (a conservative
# reading of LLVM's X86.td: a feature left out is an instruction not used, never one used
# that the CPU lacks). The psABI levels are the portable choices for a fleet.
KNOWN: dict[str, tuple[str, ...]] = {
    "x86-64": (),
    "x86-64-v2": _V2,
    "x86-64-v3": _V3,
    "x86-64-v4": (*_V3, *_AVX512),
    "haswell": _INTEL,
    "skylake-avx512": _SKX,
    "cascadelake": (*_SKX, "avx512vnni"),
    "icelake-server": _ICX,
    "sapphirerapids": _SPR,
    "emeraldrapids": _SPR,
    "graniterapids": (*_SPR, "amx-fp16"),
    "znver2": _ZEN2,
    "znver3": _ZEN3,
    "znver4": _ZEN4,
    "znver5": (*_ZEN4, "avxvnni", "avx512vp2intersect"),
}

_K, _M = 1024, 1024 * 1024
# LLVM processor name -> (L1 data, L2) per core, in bytes, from the vendors' manuals: the
# default schedules' cache tiles (passes/kernel/loops/cache_tiles.py) for a named CPU, and
# the host's where the kernel does not describe its caches. The psABI levels name no core:
# they get a Zen 4's, the caches the schedules' fractions were measured with.
CACHES: dict[str, tuple[int, int]] = {
    "x86-64": (32 * _K, _M),
    "x86-64-v2": (32 * _K, _M),
    "x86-64-v3": (32 * _K, _M),
    "x86-64-v4": (32 * _K, _M),
    "haswell": (32 * _K, 256 * _K),
    "skylake-avx512": (32 * _K, _M),
    "cascadelake": (32 * _K, _M),
    "icelake-server": (48 * _K, 1280 * _K),
    "sapphirerapids": (48 * _K, 2 * _M),
    "emeraldrapids": (48 * _K, 2 * _M),
    "graniterapids": (48 * _K, 2 * _M),
    "znver2": (32 * _K, 512 * _K),
    "znver3": (32 * _K, 512 * _K),
    "znver4": (32 * _K, _M),
    "znver5": (48 * _K, _M),
}


@dataclass(frozen=True)
class CpuTarget:
    """One CPU as LLVM names it: triple, processor and the flattened feature string."""

    triple: str
    cpu: str
    features: str  # LLVM's "+a,-b,..." as create_target_machine takes it
    # the CPU has AVX512-BF16 (kept out of `features`: FLUSHING_CONVERSIONS), whose vdpbf16ps
    # the functions with a kernel.bf16dot2 use (`bf16_features`)
    bf16: bool = False
    # one core's private data caches, which size the default schedules' cache tiles
    l1d_bytes: int = 32 * _K
    l2_bytes: int = _M

    @property
    def enabled(self) -> frozenset[str]:
        return frozenset(f[1:] for f in self.features.split(",") if f.startswith("+"))

    @property
    def vector_bits(self) -> int:
        """The widest vector register for the default schedules: 512 with AVX-512F, 256
        with AVX (AVX2 machines: 16 ymm registers), else 128."""
        have = self.enabled
        return 512 if "avx512f" in have else 256 if "avx" in have else 128

    @property
    def dot4_lanes(self) -> frozenset[int]:
        """The vector lengths (lanes of i32) at which the CPU has vpdpbusd, for kernel.dot4:
        16 with AVX-512 VNNI, 4 and 8 with AVX-512 VNNI + VL or with AVX-VNNI (Alder Lake,
        Zen 5); none on CPUs without either (Zen 3, Skylake), which get generic code."""
        have = self.enabled
        lanes: set[int] = set()
        if "avx512vnni" in have:
            lanes.add(16)
            if "avx512vl" in have:
                lanes |= {4, 8}
        if "avxvnni" in have:
            lanes |= {4, 8}
        return frozenset(lanes)

    @property
    def bf16_features(self) -> str | None:
        """The feature string of a function that uses vdpbf16ps (kernel.bf16dot2): this
        target's plus AVX512-BF16, or None where the CPU lacks it. Per function, so that
        the flushing conversions stay out of every other function."""
        if not self.bf16:
            return None
        kept = [f for f in self.features.split(",") if f and f[1:] != "avx512bf16"]
        return ",".join([*kept, "+avx512bf16"])

    def bf16_note(self) -> str | None:
        """What a user asking for bfloat16 products on this CPU should know, or None: without
        AVX512-BF16 they run as generic vector code (each product widened to float32 by
        shifts), slower than float32 (tessel.bench.cpu_bf16 on a Zen 3: 0.47-0.80x)."""
        if self.bf16:
            return None
        return (
            f"bfloat16 on {self.cpu}: this CPU has no AVX512-BF16, so the bfloat16 products run as "
            "generic vector code, slower than float32 here (bf16 pays on Zen 4/5 and Sapphire Rapids)"
        )

    @property
    def description(self) -> str:
        wide = "avx512f" if self.vector_bits == 512 else "avx2" if "avx2" in self.enabled else "sse"
        return f"{self.triple} cpu={self.cpu} widest={wide}"

    @property
    def details(self) -> str:
        """`description` and the caches, for logs. (The description alone names the machine
        in tuning records: their keys were made from it before the caches were read.)"""
        return f"{self.description} l1d={self.l1d_bytes // _K}K l2={self.l2_bytes // _K}K"

    def target_machine(self, opt: int = 3, jit: bool = True, reloc: str = "default") -> llvm.TargetMachine:
        """A fresh LLVM target machine (an MCJIT engine owns the one it is given)."""
        initialize()
        target = llvm.Target.from_triple(self.triple)
        return target.create_target_machine(cpu=self.cpu, features=self.features, opt=opt, jit=jit, reloc=reloc)

    def missing_here(self) -> list[str]:
        """The instruction-set features this target uses that the host lacks (its code cannot
        run here), in LLVM's names."""
        return sorted(self.enabled - host().enabled - _BASELINE)


@cache
def initialize() -> None:
    import ctypes.util

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    # LLVM lowers some conversions (double -> half) to compiler-rt/libgcc calls; MCJIT
    # resolves them from the process, so the library must be loaded.
    gcc_s = ctypes.util.find_library("gcc_s")
    if gcc_s:
        llvm.load_library_permanently(gcc_s)


@cache
def host() -> CpuTarget:
    """This machine as LLVM detects it, without the flushing bfloat16 conversions."""
    initialize()
    features = llvm.get_host_cpu_features()
    bf16 = bool(features.get("avx512bf16"))
    for exact in FLUSHING_CONVERSIONS:
        if features.get(exact):
            features[exact] = False
    name = llvm.get_host_cpu_name()
    l1d, l2 = host_caches(name)
    return CpuTarget(llvm.get_process_triple(), name, features.flatten(), bf16, l1d, l2)


SYSFS_CACHES = "/sys/devices/system/cpu/cpu0/cache"


def host_caches(cpu: str, root: str = SYSFS_CACHES) -> tuple[int, int]:
    """This machine's L1 data cache and L2 per core, as the kernel describes the first CPU's
    (`root`: Linux's sysfs); where it does not, or gives a size no x86-64 server core has
    (a virtual machine's made-up topology), the table's for the processor LLVM detected
    (`cpu`), else a Zen 4's."""
    l1d, l2 = CACHES.get(cpu, CACHES["x86-64"])
    found: dict[tuple[str, str], int] = {}
    try:
        for entry in sorted(os.listdir(root)):
            if not entry.startswith("index"):
                continue
            path = os.path.join(root, entry)
            with open(os.path.join(path, "level")) as f:
                level = f.read().strip()
            with open(os.path.join(path, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(path, "size")) as f:
                found[(level, kind)] = _size_bytes(f.read().strip())
    except (OSError, ValueError):
        return l1d, l2
    seen_l1d, seen_l2 = found.get(("1", "Data")), found.get(("2", "Unified"))
    if seen_l1d is not None and 16 * _K <= seen_l1d <= 128 * _K:
        l1d = seen_l1d
    if seen_l2 is not None and 256 * _K <= seen_l2 <= 8 * _M and seen_l2 >= l1d:
        l2 = seen_l2
    return l1d, l2


def _size_bytes(text: str) -> int:
    """sysfs's "48K", "2048K", "2M" as bytes."""
    scale = {"K": _K, "M": _M, "G": 1024 * _M}.get(text[-1:].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


@cache
def named(name: str) -> CpuTarget:
    """The CPU `name` (an LLVM processor name in KNOWN, or "native"/"host"): every feature
    LLVM knows is first switched off, then the table's switched on (with what they imply,
    as LLVM resolves "+avx512f" to include AVX2 and FMA)."""
    if name in ("native", "host"):
        return host()
    if name not in KNOWN:
        raise TesselError(f"unknown CPU '{name}' for mcpu (known: native, {', '.join(KNOWN)})")
    initialize()
    wanted = [f for f in KNOWN[name] if f not in FLUSHING_CONVERSIONS]
    every = [f for f in llvm.get_host_cpu_features() if f not in _BASELINE]
    wanted = [f for f in wanted if f in every]  # (test_cpu_target checks the table's names)
    flags = [f"-{f}" for f in every if f not in wanted] + [f"+{f}" for f in wanted]
    triple = llvm.get_process_triple()
    if not triple.startswith("x86_64"):
        raise TesselError(f"mcpu names x86-64 CPUs; this machine's LLVM triple is {triple}")
    l1d, l2 = CACHES[name]
    return CpuTarget(triple, name, ",".join(flags), "avx512bf16" in KNOWN[name] and "avx512bf16" in every, l1d, l2)


_CURRENT: contextvars.ContextVar[CpuTarget | None] = contextvars.ContextVar("tessel_cpu_target", default=None)


def current() -> CpuTarget:
    """The CPU being compiled for: the one `use` set, else the host."""
    return _CURRENT.get() or host()


@contextlib.contextmanager
def use(target: CpuTarget | str | None) -> Iterator[CpuTarget]:
    """Compile for `target` (a CpuTarget, a name for `named`, or None for the host) inside."""
    chosen = named(target) if isinstance(target, str) else target or host()
    token = _CURRENT.set(chosen)
    try:
        yield chosen
    finally:
        _CURRENT.reset(token)


def require_runnable(target: CpuTarget, what: str) -> None:
    """Refuse, in one line, to run code compiled for a CPU with features this one lacks."""
    missing = target.missing_here()
    if missing:
        raise TesselError(
            f"{what} is compiled for {target.cpu}, which has {', '.join(missing)}; this CPU "
            f"({host().cpu}) lacks {'it' if len(missing) == 1 else 'them'}: choose an mcpu this machine has"
        )
