// Specs he-synthesize cannot turn into programs: one error line at the spec (or the op).

// RUN: %tessel-opt %s --split-input-file --verify-diagnostics -p 'he-synthesize{costs="%S/Inputs/costs.json" progress=false max-length=3}' | filecheck %s

// z3 proves that no 3-operation program computes a squared distance over 4 slots (it takes
// a subtraction, a square and two rotate-and-adds).
// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: he-synthesize: unsatisfiable: no program of at most 3 operations computes @l2 with add, sub, multiply and rotations [1, 2] (z3 proved every length from 3); raise max-length or check the spec
func.func @l2(%a: !hev.vec<4>, %b: !hev.vec<4>) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %d = hev.spec.sub %a, %b : !hev.vec<4>
  %sq = hev.spec.mul %d, %d : !hev.vec<4>
  %s = hev.spec.sum %sq : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

// -----

// The lower bound alone rules it out: an output slot reading 16 input slots needs 4
// operations (each at most doubles what a value depends on).
// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: he-synthesize: @sum16 needs at least 4 operations (its output reads 16 input slots), more than max-length=3
func.func @sum16(%a: !hev.vec<16>) -> (!hev.vec<16> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %s = hev.spec.sum %a : !hev.vec<16>
  func.return %s : !hev.vec<16>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 2]]:3: error: 'hev.spec.mul' computes on public values only (hev.public inputs and constants); a BFV program cannot: precompute it outside the kernel
func.func @public_product(%a: !hev.vec<4>, %b: !hev.vec<4> {hev.public}, %c: !hev.vec<4> {hev.public}) -> !hev.vec<4> attributes {hev.spec} {
  %bc = hev.spec.mul %b, %c : !hev.vec<4>
  %r = hev.spec.add %a, %bc : !hev.vec<4>
  func.return %r : !hev.vec<4>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: spec @all_public: the result depends on no secret input; there is nothing to encrypt
func.func @all_public(%b: !hev.vec<4> {hev.public}) -> !hev.vec<4> attributes {hev.spec} {
  %r = hev.spec.add %b, %b : !hev.vec<4>
  func.return %r : !hev.vec<4>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: spec @identity returns its input unchanged; there is nothing to compute
func.func @identity(%x: !hev.vec<4>) -> !hev.vec<4> attributes {hev.spec} {
  func.return %x : !hev.vec<4>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 3]]:3: error: 'hev.encrypt' cannot appear in spec @mixed: a spec is written with hev.spec.* ops
func.func @mixed(%x: !hev.vec<4>) -> !hev.vec<4> attributes {hev.spec} {
  %s = hev.spec.add %x, %x : !hev.vec<4>
  %c = hev.encrypt %s : !hev.vec<4> -> !hev.ct<4>
  func.return %s : !hev.vec<4>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @wrong_result must return one !hev.vec<n>, got (!hev.ct<4>)
func.func @wrong_result(%x: !hev.vec<4>) -> !hev.ct<4> attributes {hev.spec} {
  %c = hev.encrypt %x : !hev.vec<4> -> !hev.ct<4>
  func.return %c : !hev.ct<4>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @mixed_sizes: argument #1 has type !hev.vec<8>; every argument and the result must be !hev.vec<4>
func.func @mixed_sizes(%x: !hev.vec<4>, %y: !hev.vec<8>) -> !hev.vec<4> attributes {hev.spec} {
  %s = hev.spec.add %x, %x : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

// -----

// The domain is a typed attribute, not a string (the old spelling gets a pointer to the new).
// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @bad_domain: argument #0: hev.domain must be #hev<domain any> or #hev<domain bits>, got "bits"
func.func @bad_domain(%x: !hev.vec<4> {hev.domain = "bits"}) -> !hev.vec<4> attributes {hev.spec} {
  %s = hev.spec.add %x, %x : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @bad_image: argument #0: a 4x8 image has 32 pixels, the vector has 16 slots
func.func @bad_image(%x: !hev.vec<16> {hev.image = array<i64: 4, 8>}) -> !hev.vec<16> attributes {hev.spec} {
  %s = hev.spec.add %x, %x : !hev.vec<16>
  func.return %s : !hev.vec<16>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @bad_slots: hev.slots names slot 4, outside the 4 slots of the result
func.func @bad_slots(%x: !hev.vec<4>) -> (!hev.vec<4> {hev.slots = array<i64: 0, 4>}) attributes {hev.spec} {
  %s = hev.spec.add %x, %x : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @bad_modulus: hev.plain_modulus must be an odd prime below 2^31, got 65536
func.func @bad_modulus(%x: !hev.vec<4>) -> !hev.vec<4> attributes {hev.spec, hev.plain_modulus = 65536 : i64} {
  %s = hev.spec.add %x, %x : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @unknown_attr: argument #0: unknown attribute hev.secret (known: hev.public, hev.domain, hev.image, hev.padded)
func.func @unknown_attr(%x: !hev.vec<4> {hev.secret}) -> !hev.vec<4> attributes {hev.spec} {
  %s = hev.spec.add %x, %x : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

// -----

// A plaintext modulus that batches at no ring degree of the cost table (t - 1 must be a
// multiple of 2N): one line at the spec.
// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: he-synthesize: @no_batching: no parameter set in the cost table supports depth 0 for 4 slots at t=65539 (none batches at t=65539: t must be 1 mod 2N, e.g. 65537 or 786433)
func.func @no_batching(%x: !hev.vec<4>) -> !hev.vec<4> attributes {hev.spec, hev.plain_modulus = 65539 : i64} {
  %r = hev.spec.shift %x by 1 : !hev.vec<4>
  %s = hev.spec.add %x, %r : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @bad_padding: argument #0: hev.padded on a vector must be array<i64: start, count>, got array<i64: 0, 0, 4, 4>
func.func @bad_padding(%x: !hev.vec<16> {hev.padded = array<i64: 0, 0, 4, 4>}) -> !hev.vec<16> attributes {hev.spec} {
  %s = hev.spec.sum %x : !hev.vec<16>
  func.return %s : !hev.vec<16>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @padding_outside: argument #0: hev.padded slots 12 .. 19 are not within the 16 slots
func.func @padding_outside(%x: !hev.vec<16> {hev.padded = array<i64: 12, 8>}) -> !hev.vec<16> attributes {hev.spec} {
  %s = hev.spec.sum %x : !hev.vec<16>
  func.return %s : !hev.vec<16>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @image_padding: argument #0: hev.padded block of 4x5 pixels at (1, 0) is not within the 4x4 image
func.func @image_padding(%x: !hev.vec<16> {hev.image = array<i64: 4, 4>, hev.padded = array<i64: 1, 0, 4, 5>}) -> !hev.vec<16> attributes {hev.spec} {
  %r = hev.spec.shift %x by 1 : !hev.vec<16>
  %s = hev.spec.add %x, %r : !hev.vec<16>
  func.return %s : !hev.vec<16>
}

// -----

// CHECK: synthesize-invalid.mlir:[[# @LINE + 1]]:1: error: @image_padding_shape: argument #0: hev.padded on an image must be array<i64: row, col, height, width>, got array<i64: 0, 8>
func.func @image_padding_shape(%x: !hev.vec<16> {hev.image = array<i64: 4, 4>, hev.padded = array<i64: 0, 8>}) -> !hev.vec<16> attributes {hev.spec} {
  %r = hev.spec.shift %x by 1 : !hev.vec<16>
  %s = hev.spec.add %x, %r : !hev.vec<16>
  func.return %s : !hev.vec<16>
}
