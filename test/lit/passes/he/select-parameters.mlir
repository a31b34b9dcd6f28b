// he-select-parameters: the cheapest measured parameter set that leaves enough noise
// budget, and the only rotation keys the program needs.

// RUN: %tessel-opt %s -p 'he-select-parameters{costs="%S/Inputs/costs.json"}' | filecheck %s
// RUN: %tessel-opt %s -p 'he-select-parameters{costs="%S/Inputs/costs.json" margin=40.0}' | filecheck %s --check-prefix=MARGIN
// RUN: not %tessel-opt %s -p 'he-select-parameters{costs="%S/Inputs/costs.json" margin=1000.0}' 2>&1 | filecheck %s --check-prefix=NONE
// RUN: not %tessel-opt %s -p 'he-select-parameters{margin=-1.0}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not %tessel-opt %s -p 'he-select-parameters{costs="%S/Inputs/missing.json"}' 2>&1 | filecheck %s --check-prefix=MISSING
// NEGATIVE: tessel-opt: error: he-select-parameters: margin must be >= 0 bits
// MISSING: tessel-opt: error: no cost table at {{.*}}missing.json: measure one with `python -m tessel.targets.seal.profile -o dialects/hev/costs.json`

// A depth-0 kernel on 16 slots: the smallest ring and modulus.
// CHECK-LABEL: func.func @blur_prog
// CHECK-SAME: hev.params = "n4096-q55x2", hev.rotation_keys = array<i64: -4>, hev.noise_estimate = {{[0-9]+}} : i64
// Depth 2 needs three primes.
// CHECK-LABEL: func.func @cube_prog
// CHECK-SAME: hev.params = "n8192-q50x3"
// MARGIN: @blur_prog{{.*}}hev.params = "n4096-q109"
// NONE: select-parameters.mlir:[[# @LINE + 8]]:1: error: no parameter set in the cost table fits @blur_prog (16 slots, t=65537, depth 0, margin 1000.0 bits)

func.func @blur(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.spec} {
  %up = hev.spec.shift %x by -4 : !hev.vec<16>
  %s0 = hev.spec.add %x, %up : !hev.vec<16>
  func.return %s0 : !hev.vec<16>
}

func.func @blur_prog(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.implements = @blur} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %r0 = hev.rotate %c by 12 : !hev.ct<16>
  %s0 = hev.add %c, %r0 : !hev.ct<16>
  %out = hev.decrypt %s0 : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}

func.func @cube(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.spec} {
  %s = hev.spec.mul %x, %x : !hev.vec<16>
  %c = hev.spec.mul %s, %x : !hev.vec<16>
  func.return %c : !hev.vec<16>
}

func.func @cube_prog(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.implements = @cube} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %s3 = hev.multiply %c, %c : !hev.ct<16> -> !hev.ct<16, size = 3>
  %s = hev.relinearize %s3 : !hev.ct<16, size = 3> -> !hev.ct<16>
  %k3 = hev.multiply %s, %c : !hev.ct<16> -> !hev.ct<16, size = 3>
  %k = hev.relinearize %k3 : !hev.ct<16, size = 3> -> !hev.ct<16>
  %out = hev.decrypt %k : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}
