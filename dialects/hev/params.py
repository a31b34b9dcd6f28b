"""BFV parameter sets: the rings and coefficient moduli a program may run at.

A parameter set is a ring degree N (N/2 slots per row) and a coefficient modulus q given
as prime sizes in bits; the last prime is SEAL's special prime for key switching, the
others are levels. Every set here is 128-bit secure (SEAL refuses anything else). The
plaintext modulus t comes from the kernel (`hev.plain_modulus`, default 65537).

They are data that both sides need: `he-select-parameters` chooses one of them (the
cheapest by measured latency that keeps enough noise budget, `tessel.passes.he.model`) and
records its name in `hev.params`; the SEAL target builds its context from it. Smaller q
makes every operation cheaper (key switching grows with the number of primes), so a
depth-0 kernel should not pay for the default N=8192, 218-bit q.
"""

from __future__ import annotations

from dataclasses import dataclass

from tessel.ir.diagnostics import TesselError


@dataclass(frozen=True)
class ParamSet:
    name: str
    poly_modulus_degree: int
    coeff_bits: tuple[int, ...] | None  # None: SEAL's BFVDefault for this N

    @property
    def slots(self) -> int:
        """Slots per row: the largest logical vector a ciphertext can hold."""
        return self.poly_modulus_degree // 2

    def resolved_bits(self) -> tuple[int, ...]:
        if self.coeff_bits is not None:
            return self.coeff_bits
        return DEFAULT_BITS[self.poly_modulus_degree]

    def describe(self) -> str:
        bits = self.resolved_bits()
        return f"N={self.poly_modulus_degree}, q={'+'.join(map(str, bits))} bits ({sum(bits)})"


# SEAL's CoeffModulus::BFVDefault at 128-bit security.
DEFAULT_BITS = {4096: (36, 36, 37), 8192: (43, 43, 44, 44, 44), 16384: (48, 48, 48, 49, 49, 49, 49, 49, 49)}

CANDIDATES: tuple[ParamSet, ...] = (
    ParamSet("n4096-q109", 4096, None),
    ParamSet("n4096-q55x2", 4096, (54, 55)),
    ParamSet("n8192-q40x2", 8192, (40, 40)),
    ParamSet("n8192-q60x2", 8192, (60, 60)),
    ParamSet("n8192-q50x3", 8192, (50, 50, 50)),
    ParamSet("n8192-q60x3", 8192, (60, 60, 60)),
    ParamSet("n8192-q218", 8192, None),
    ParamSet("n16384-q60x3", 16384, (60, 60, 60)),
    ParamSet("n16384-q438", 16384, None),
)

# The fixed parameters of the paper's setting (Porcupine and HECO's port: N=8192, SEAL's
# default q): what the baselines and Porcupine's programs run at.
DEFAULT = next(p for p in CANDIDATES if p.name == "n8192-q218")


def by_name(name: str) -> ParamSet:
    for p in CANDIDATES:
        if p.name == name:
            return p
    raise TesselError(f"unknown parameter set '{name}' (known: {', '.join(p.name for p in CANDIDATES)})")
