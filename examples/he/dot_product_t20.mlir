// Dot product of a secret 16-vector with the server's plaintext 16-vector, into slot 0,
// modulo the 20-bit NTT-friendly prime t = 786433 = 3 * 2^18 + 1 (batching for N up to 2^17).

// The spec (examples/he/kernels.py builds the same function in Python).
func.func @dot_product_t20(%a: !hev.vec<16>, %b: !hev.vec<16> {hev.public}) -> (!hev.vec<16> {hev.slots = array<i64: 0>}) attributes {hev.spec, hev.plain_modulus = 786433 : i64} {
  %0 = hev.spec.mul %a, %b : !hev.vec<16>
  %1 = hev.spec.sum %0 : !hev.vec<16>
  func.return %1 : !hev.vec<16>
}

// Hand-written baseline: multiply, then the rotate-and-add tree (4 rotations).
func.func @dot_product_t20_baseline(%a: !hev.vec<16>, %b: !hev.vec<16> {hev.public}) -> (!hev.vec<16> {hev.slots = array<i64: 0>}) attributes {hev.implements = @dot_product_t20, hev.plain_modulus = 786433 : i64} {
  %c = hev.encrypt %a : !hev.vec<16> -> !hev.ct<16>
  %pb = hev.encode %b : !hev.vec<16> -> !hev.pt<16>
  %m = hev.multiply_plain %c, %pb : !hev.ct<16>, !hev.pt<16>
  %r8 = hev.rotate %m by 8 : !hev.ct<16>
  %s8 = hev.add %m, %r8 : !hev.ct<16>
  %r4 = hev.rotate %s8 by 4 : !hev.ct<16>
  %s4 = hev.add %s8, %r4 : !hev.ct<16>
  %r2 = hev.rotate %s4 by 2 : !hev.ct<16>
  %s2 = hev.add %s4, %r2 : !hev.ct<16>
  %r1 = hev.rotate %s2 by 1 : !hev.ct<16>
  %s1 = hev.add %s2, %r1 : !hev.ct<16>
  %out = hev.decrypt %s1 : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}
