"""Galois keys on SEAL: which elements to generate for a program's rotation steps.

Rotation steps are the IR's (`hev.rotate` amounts, normalized by
`tessel.dialects.hev.metrics.normalize_rotation`); SEAL's key generator wants Galois
*elements*, and a runtime with power-of-two keys only composes each step from them.
"""

from __future__ import annotations


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
