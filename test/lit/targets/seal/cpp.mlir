// tessel-translate --target seal-cpp: one C++ function per program, with its parameters and
// the only rotation steps to make Galois keys for.

// RUN: %tessel-translate %s --target seal-cpp | filecheck %s
// RUN: %tessel-translate %s --target seal-cpp --opt entry=ham_prog | filecheck %s --check-prefix=ONE
// RUN: not %tessel-translate %s --target seal-cpp --opt entry=nope 2>&1 | filecheck %s --check-prefix=NOPE
// RUN: not %tessel-translate %s --target seal-cpp --opt stream=1 2>&1 | filecheck %s --check-prefix=OPT

// CHECK:      #include "seal/seal.h"
// CHECK:      inline void encode_replicated(
// CHECK:      // @ham_prog: 4-slot vectors, N=4096, q=54+55 bits (109), t=65537.
// CHECK-NEXT: inline seal::EncryptionParameters ham_prog_parameters() {
// CHECK-NEXT:   seal::EncryptionParameters parms(seal::scheme_type::bfv);
// CHECK-NEXT:   parms.set_poly_modulus_degree(4096);
// CHECK-NEXT:   parms.set_coeff_modulus(seal::CoeffModulus::Create(4096, {54, 55}));
// CHECK-NEXT:   parms.set_plain_modulus(65537);
// CHECK:      inline std::vector<int> ham_prog_rotation_steps() { return {1, 2}; }
// CHECK:      inline seal::Ciphertext ham_prog(const seal::Evaluator &evaluator,
// CHECK-NEXT:   const seal::BatchEncoder &encoder,
// CHECK-NEXT:   const seal::RelinKeys &relin_keys,
// CHECK-NEXT:   const seal::GaloisKeys &galois_keys,
// CHECK-NEXT:   const seal::Ciphertext &a_ct /* a, encrypted */,
// CHECK-NEXT:   const seal::Ciphertext &b_ct /* b, encrypted */) {
// CHECK-NEXT:   seal::Plaintext two;
// CHECK-NEXT:   tessel_he::encode_replicated(encoder, {2}, two);
// CHECK-NEXT:   seal::Ciphertext and_;
// CHECK-NEXT:   evaluator.multiply(a_ct, b_ct, and_);
// CHECK-NEXT:   seal::Ciphertext sq;
// CHECK-NEXT:   evaluator.square(a_ct, sq);
// CHECK-NEXT:   seal::Ciphertext l;
// CHECK-NEXT:   evaluator.relinearize(and_, relin_keys, l);
// CHECK-NEXT:   seal::Ciphertext m;
// CHECK-NEXT:   evaluator.multiply_plain(l, two, m);
// CHECK-NEXT:   seal::Ciphertext r;
// CHECK-NEXT:   evaluator.rotate_rows(m, 2, galois_keys, r);
// CHECK-NEXT:   seal::Ciphertext r2;
// CHECK-NEXT:   evaluator.rotate_rows(r, 1, galois_keys, r2);
// CHECK-NEXT:   seal::Ciphertext n;
// CHECK-NEXT:   evaluator.negate(r2, n);
// CHECK-NEXT:   return n;
// CHECK-NEXT: }
// CHECK:      // @dot_prog:
// CHECK:      inline seal::Ciphertext dot_prog(const seal::Evaluator &evaluator,
// CHECK-NEXT:   const seal::Ciphertext &a_ct /* a, encrypted */,
// CHECK-NEXT:   const seal::Plaintext &b_pt /* b, encode_replicated */) {
// CHECK:      }  // namespace tessel_he

// ONE-NOT: dot_prog
// ONE:     ham_prog_parameters
// ONE-NOT: dot_prog
// NOPE: tessel-translate: error: {{.*}}cpp.mlir: no program @nope (a function with hev.implements)
// OPT: tessel-translate: error: seal-cpp takes --opt entry=NAME only, got 'stream'

func.func @ham(%a: !hev.vec<4>, %b: !hev.vec<4>) -> !hev.vec<4> attributes {hev.spec} {
  %m = hev.spec.mul %a, %b : !hev.vec<4>
  func.return %m : !hev.vec<4>
}

// Not a correct program for @ham (translation does not check that): every op kind once.
func.func @ham_prog(%a: !hev.vec<4>, %b: !hev.vec<4>) -> !hev.vec<4> attributes {hev.implements = @ham, hev.params = "n4096-q55x2"} {
  %a_ct = hev.encrypt %a : !hev.vec<4> -> !hev.ct<4>
  %b_ct = hev.encrypt %b : !hev.vec<4> -> !hev.ct<4>
  %two = hev.constant 2 : !hev.pt<4>
  %and = hev.multiply %a_ct, %b_ct : !hev.ct<4> -> !hev.ct<4, size = 3>
  %sq = hev.multiply %a_ct, %a_ct : !hev.ct<4> -> !hev.ct<4, size = 3>
  %l = hev.relinearize %and : !hev.ct<4, size = 3> -> !hev.ct<4>
  %m = hev.multiply_plain %l, %two : !hev.ct<4>, !hev.pt<4>
  %r = hev.rotate %m by 2 : !hev.ct<4>
  %r2 = hev.rotate %r by 1 : !hev.ct<4>
  %n = hev.negate %r2 : !hev.ct<4>
  %o = hev.decrypt %n : !hev.ct<4> -> !hev.vec<4>
  func.return %o : !hev.vec<4>
}

func.func @dot(%a: !hev.vec<4>, %b: !hev.vec<4> {hev.public}) -> !hev.vec<4> attributes {hev.spec} {
  %m = hev.spec.mul %a, %b : !hev.vec<4>
  func.return %m : !hev.vec<4>
}

func.func @dot_prog(%a: !hev.vec<4>, %b: !hev.vec<4> {hev.public}) -> !hev.vec<4> attributes {hev.implements = @dot, hev.params = "n4096-q55x2"} {
  %a_ct = hev.encrypt %a : !hev.vec<4> -> !hev.ct<4>
  %b_pt = hev.encode %b : !hev.vec<4> -> !hev.pt<4>
  %m = hev.multiply_plain %a_ct, %b_pt : !hev.ct<4>, !hev.pt<4>
  %o = hev.decrypt %m : !hev.ct<4> -> !hev.vec<4>
  func.return %o : !hev.vec<4>
}
