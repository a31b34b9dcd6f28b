// A plaintext modulus other than the default survives the whole pipeline: the synthesized
// program carries hev.plain_modulus (its structure check demands it), parameters are chosen
// for that t (the noise of a larger t is priced), and the program decrypts on SEAL with
// budget to spare, for several inputs. t = 786433 = 3 * 2^18 + 1 is a 20-bit NTT-friendly
// prime (it batches for every N up to 2^17).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessel-opt %s -p 'he-synthesize{costs="%S/Inputs/costs.json" progress=false},he-select-parameters{costs="%S/Inputs/costs.json"}' > %t/out.mlir
// RUN: filecheck %s --input-file %t/out.mlir
// CHECK-LABEL: func.func @dot20_synth(
// CHECK-SAME:    hev.implements = @dot20, hev.plain_modulus = 786433 : i64
// CHECK-SAME:    hev.params = "{{n[0-9]+-q[0-9x]+}}", hev.rotation_keys = array<i64: 1, 2, 4>, hev.noise_estimate = {{[1-9][0-9]*}} : i64
// CHECK-COUNT-3: hev.rotate
// CHECK-NOT:     hev.rotate
// CHECK-LABEL: func.func @blur20_synth(
// CHECK-SAME:    hev.implements = @blur20, hev.plain_modulus = 786433 : i64

// RUN: %tessel-run %t/out.mlir --target seal --reps 1 --seed 1 | filecheck %s --check-prefix=SEAL
// RUN: %tessel-run %t/out.mlir --target seal --reps 1 --seed 2 | filecheck %s --check-prefix=SEAL
// RUN: %tessel-run %t/out.mlir --target seal --reps 1 --seed 3 | filecheck %s --check-prefix=SEAL
// SEAL-LABEL: @dot20_synth: {{.*}}, t=786433 (from hev.params)
// SEAL-NEXT: noise budget left {{[1-9][0-9]*}} bits
// SEAL-NEXT: check against @dot20: OK (1 slots)
// SEAL-LABEL: @blur20_synth: {{.*}}, t=786433 (from hev.params)
// SEAL-NEXT: noise budget left {{[1-9][0-9]*}} bits
// SEAL-NEXT: check against @blur20: OK (64 slots)

func.func @dot20(%a: !hev.vec<8>, %b: !hev.vec<8> {hev.public}) -> (!hev.vec<8> {hev.slots = array<i64: 0>}) attributes {hev.spec, hev.plain_modulus = 786433 : i64} {
  %p = hev.spec.mul %a, %b : !hev.vec<8>
  %s = hev.spec.sum %p : !hev.vec<8>
  func.return %s : !hev.vec<8>
}

func.func @blur20(%x: !hev.vec<64> {hev.image = array<i64: 8, 8>}) -> !hev.vec<64> attributes {hev.spec, hev.plain_modulus = 786433 : i64} {
  %up = hev.spec.shift %x by -8 : !hev.vec<64>
  %s0 = hev.spec.add %x, %up : !hev.vec<64>
  %left = hev.spec.shift %x by -1 : !hev.vec<64>
  %s1 = hev.spec.add %s0, %left : !hev.vec<64>
  %diag = hev.spec.shift %x by -9 : !hev.vec<64>
  %s2 = hev.spec.add %s1, %diag : !hev.vec<64>
  func.return %s2 : !hev.vec<64>
}
