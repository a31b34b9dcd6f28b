"""The BFV runtime: Microsoft SEAL through TenSEAL's `tenseal.sealapi`, behind a small shim.

Everything SEAL-specific lives here: building the context for a parameter set, keys (the
relinearization key only when the program multiplies; Galois keys only for the rotations it
uses, as Galois *elements* because of the overload trap, see `keys.galois_element`), the
replicated slot layout, and one method per `hev` operation.

Layout: an n-slot vector is stored repeated N/(2n) times in both rows of the N-slot
plaintext, so SEAL's row rotation by k is exactly the cyclic rotation of the n-vector.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tessel.dialects.hev.metrics import normalize_rotation
from tessel.dialects.hev.params import ParamSet
from tessel.ir.diagnostics import TesselError
from tessel.targets.seal.keys import galois_element, signed_power_of_two_steps

SealObject = Any  # a tenseal.sealapi Ciphertext or Plaintext (the bindings are untyped)

try:
    import tenseal.sealapi as seal
except ImportError:  # pragma: no cover - tenseal is a dependency
    seal = None


class SealRuntime:
    """Keys and evaluator for one parameter set, plaintext modulus and rotation set.

    keys="exact": one Galois key per distinct step; keys="pow2": keys for the signed powers
    of two that the steps decompose into, a rotation then being several key switches
    (fewer keys, more work: EVA/HEIR's trade-off, exposed rather than decided)."""

    def __init__(
        self,
        params: ParamSet,
        plain_modulus: int,
        slots: int,
        rotations: Iterable[int] = (),
        relinearize: bool = True,
        keys: str = "exact",
    ):
        if seal is None:
            raise TesselError("tenseal is not installed: pip install tenseal==0.3.18")
        if slots > params.slots:
            raise TesselError(f"{slots}-slot vectors do not fit {params.describe()} ({params.slots} slots per row)")
        if (plain_modulus - 1) % (2 * params.poly_modulus_degree):
            raise TesselError(
                f"plaintext modulus {plain_modulus} does not support batching at N={params.poly_modulus_degree} "
                f"(it must be 1 mod {2 * params.poly_modulus_degree})"
            )
        if keys not in ("exact", "pow2"):
            raise TesselError(f"keys must be 'exact' or 'pow2', got '{keys}'")
        self.params, self.t, self.n, self.keys_mode = params, plain_modulus, slots, keys
        N = params.poly_modulus_degree
        parms = seal.EncryptionParameters(seal.SCHEME_TYPE.BFV)
        parms.set_poly_modulus_degree(N)
        parms.set_coeff_modulus(seal.CoeffModulus.Create(N, list(params.resolved_bits())))
        parms.set_plain_modulus(seal.Modulus(plain_modulus))
        self.context = seal.SEALContext(parms, True, seal.SEC_LEVEL_TYPE.TC128)
        if not self.context.parameters_set():
            raise TesselError(
                f"SEAL rejects {params.describe()} with t={plain_modulus}: {self.context.parameters_error_message()}"
            )
        keygen = self.keygen = seal.KeyGenerator(self.context)
        self.public_key = seal.PublicKey()
        keygen.create_public_key(self.public_key)
        self.relin_keys = None
        if relinearize:
            self.relin_keys = seal.RelinKeys()
            keygen.create_relin_keys(self.relin_keys)
        self.steps: dict[int, list[int]] = {}
        for amount in rotations:
            step = normalize_rotation(amount, slots)
            if step:
                self.steps[amount] = [step] if keys == "exact" else signed_power_of_two_steps(step)
        key_steps = sorted({s for parts in self.steps.values() for s in parts})
        self.key_steps = key_steps
        self.galois_keys = None
        if key_steps:
            self.galois_keys = seal.GaloisKeys()
            keygen.create_galois_keys([galois_element(s, N) for s in key_steps], self.galois_keys)
        self.encryptor = seal.Encryptor(self.context, self.public_key)
        self.decryptor = seal.Decryptor(self.context, keygen.secret_key())
        self.evaluator = seal.Evaluator(self.context)
        self.encoder = seal.BatchEncoder(self.context)
        self._secret_key = keygen.secret_key()

    # ------------------------------------------------------------------ boundaries

    def _replicated(self, values: Sequence[int] | np.ndarray) -> list[int]:
        v = np.asarray(values, dtype=np.int64) % self.t
        if v.shape != (self.n,):
            raise TesselError(f"expected a vector of {self.n} slots, got shape {tuple(v.shape)}")
        return [int(x) for x in np.tile(v, self.params.poly_modulus_degree // self.n)]

    def encode(self, values: Sequence[int] | np.ndarray) -> SealObject:
        pt = seal.Plaintext()
        self.encoder.encode(self._replicated(values), pt)
        return pt

    def constant(self, value: int) -> SealObject:
        return self.encode(np.full(self.n, value % self.t, dtype=np.int64))

    def encrypt(self, values: Sequence[int] | np.ndarray) -> SealObject:
        ct = seal.Ciphertext()
        self.encryptor.encrypt(self.encode(values), ct)
        return ct

    def decrypt(self, ct: SealObject) -> np.ndarray:
        pt = seal.Plaintext()
        self.decryptor.decrypt(ct, pt)
        return np.asarray(self.encoder.decode_uint64(pt)[: self.n], dtype=np.int64)

    def noise_budget(self, ct: SealObject) -> int:
        return self.decryptor.invariant_noise_budget(ct)

    # ------------------------------------------------------------------ operations

    def _exact_zero_safe(self, operation, a: SealObject, b: SealObject) -> SealObject:
        """`operation(a, b, out)`, where a result that is exactly zero (x - x, x + (-x), x
        times an all-zero plaintext) is a fresh encryption of zero at a's level. SEAL
        refuses to produce such a "transparent" ciphertext (it would reveal the result
        without the key), which took down programs that compute it legitimately."""
        out = seal.Ciphertext()
        try:
            operation(a, b, out)
        except RuntimeError as err:
            if "transparent" not in str(err):
                raise
            out = self.encrypt(np.zeros(self.n, dtype=np.int64))
            if out.parms_id() != a.parms_id():
                self.evaluator.mod_switch_to_inplace(out, a.parms_id())
        return out

    def add(self, a: SealObject, b: SealObject) -> SealObject:
        return self._exact_zero_safe(self.evaluator.add, a, b)

    def sub(self, a: SealObject, b: SealObject) -> SealObject:
        return self._exact_zero_safe(self.evaluator.sub, a, b)

    def multiply(self, a: SealObject, b: SealObject) -> SealObject:
        out = seal.Ciphertext()
        if a is b:
            self.evaluator.square(a, out)
        else:
            self.evaluator.multiply(a, b, out)
        return out

    def relinearize(self, a: SealObject) -> SealObject:
        if self.relin_keys is None:
            raise TesselError("the program relinearizes but no relinearization key was made")
        out = seal.Ciphertext()
        self.evaluator.relinearize(a, self.relin_keys, out)
        return out

    def negate(self, a: SealObject) -> SealObject:
        out = seal.Ciphertext()
        self.evaluator.negate(a, out)
        return out

    def add_plain(self, a: SealObject, p: SealObject) -> SealObject:
        return self._exact_zero_safe(self.evaluator.add_plain, a, p)

    def sub_plain(self, a: SealObject, p: SealObject) -> SealObject:
        return self._exact_zero_safe(self.evaluator.sub_plain, a, p)

    def multiply_plain(self, a: SealObject, p: SealObject) -> SealObject:
        return self._exact_zero_safe(self.evaluator.multiply_plain, a, p)

    def mod_switch(self, a: SealObject) -> SealObject:
        out = seal.Ciphertext()
        self.evaluator.mod_switch_to_next(a, out)
        return out

    def rotate(self, a: SealObject, amount: int) -> SealObject:
        if amount not in self.steps:
            raise TesselError(f"no Galois key for a rotation by {amount}: list it when making the runtime")
        out = a
        for step in self.steps[amount]:
            nxt = seal.Ciphertext()
            self.evaluator.rotate_rows(out, step, self.galois_keys, nxt)
            out = nxt
        return out
