"""BFV parameter sets and the choice among them.

A parameter set is a ring degree N (N/2 slots per row) and a coefficient modulus q given
as prime sizes in bits; the last prime is SEAL's special prime for key switching, the
others are levels. Every set here is 128-bit secure (SEAL refuses anything else). The
plaintext modulus t comes from the kernel (`hev.plain_modulus`, default 65537).

Choosing the parameters (`select`): the program's noise consumption is estimated from the
*measured* per-operation noise of each set (the cost table, `costs.py`), and the cheapest
set by measured latency that keeps at least `margin` bits of noise budget wins. Smaller q
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


def galois_element(step: int, poly_modulus_degree: int) -> int:
    """SEAL's Galois element for a row rotation by `step` (GaloisTool::get_elt_from_step).

    The trap: KeyGenerator.create_galois_keys(list) in tenseal.sealapi resolves to the
    overload taking *elements*, so steps must be converted here, never passed directly."""
    n = poly_modulus_degree
    if step == 0 or abs(step) >= n // 2:
        raise ValueError(f"rotation step {step} out of range for N={n}")
    exponent = n // 2 - abs(step) if step < 0 else step
    return pow(3, exponent, 2 * n)


def signed_power_of_two_steps(step: int) -> list[int]:
    """`step` as a sum of signed powers of two with the fewest terms (non-adjacent form):
    the rotations to compose when only power-of-two keys exist."""
    out, k, bit = [], step, 1
    while k:
        if k & 1:
            digit = 2 - (k & 3)  # +1 or -1
            out.append(digit * bit)
            k -= digit
        k >>= 1
        bit <<= 1
    return out
