// he-synthesize adds a verified program @<spec>_synth after each spec. The costs come from
// a fixed snapshot of the measured table so the chosen programs do not drift.

// RUN: %tessel-opt %s --split-input-file -p 'he-synthesize{costs="%S/Inputs/costs.json" progress=false}' | filecheck %s

// A 2x2 box blur on an 8x8 image: two rotations (Porcupine's program), proven optimal.
// CHECK-LABEL: func.func @box_blur(
// CHECK:       func.func @box_blur_synth(%x: !hev.vec<64> {hev.image = array<i64: 8, 8>}) -> !hev.vec<64>
// CHECK-SAME:    hev.implements = @box_blur
// CHECK-SAME:    optimal = true
// CHECK-NEXT:    %x_ct = hev.encrypt %x : !hev.vec<64> -> !hev.ct<64>
// CHECK-NEXT:    %r0 = hev.rotate %x_ct by {{-1|-8}} : !hev.ct<64>
// CHECK-NEXT:    %v0 = hev.add %x_ct, %r0 : !hev.ct<64>
// CHECK-NEXT:    %r1 = hev.rotate %v0 by {{-1|-8}} : !hev.ct<64>
// CHECK-NEXT:    %v1 = hev.add %v0, %r1 : !hev.ct<64>
// CHECK-NEXT:    %out = hev.decrypt %v1 : !hev.ct<64> -> !hev.vec<64>
// CHECK-NEXT:    func.return %out : !hev.vec<64>
func.func @box_blur(%x: !hev.vec<64> {hev.image = array<i64: 8, 8>}) -> !hev.vec<64> attributes {hev.spec} {
  %up = hev.spec.shift %x by -8 : !hev.vec<64>
  %s0 = hev.spec.add %x, %up : !hev.vec<64>
  %left = hev.spec.shift %x by -1 : !hev.vec<64>
  %s1 = hev.spec.add %s0, %left : !hev.vec<64>
  %diag = hev.spec.shift %x by -9 : !hev.vec<64>
  %s2 = hev.spec.add %s1, %diag : !hev.vec<64>
  func.return %s2 : !hev.vec<64>
}

// -----

// A public operand becomes a plaintext (hev.encode) and a ct-pt multiplication; the sum
// over 4 slots is a tree of two rotations.
// CHECK-LABEL: func.func @dot_synth(
// CHECK-SAME:    %a: !hev.vec<4>, %b: !hev.vec<4> {hev.public}) -> (!hev.vec<4> {hev.slots = array<i64: 0>})
// CHECK-NEXT:    %a_ct = hev.encrypt %a : !hev.vec<4> -> !hev.ct<4>
// CHECK-NEXT:    %b_pt = hev.encode %b : !hev.vec<4> -> !hev.pt<4>
// CHECK-NEXT:    %v0 = hev.multiply_plain %a_ct, %b_pt : !hev.ct<4>, !hev.pt<4>
// CHECK-NEXT:    %r0 = hev.rotate %v0 by {{1|2}} : !hev.ct<4>
// CHECK-NEXT:    %v1 = hev.add %v0, %r0 : !hev.ct<4>
// CHECK-NEXT:    %r1 = hev.rotate %v1 by {{1|2}} : !hev.ct<4>
// CHECK-NEXT:    %v2 = hev.add %v1, %r1 : !hev.ct<4>
// CHECK-NEXT:    %out = hev.decrypt %v2 : !hev.ct<4> -> !hev.vec<4>
func.func @dot(%a: !hev.vec<4>, %b: !hev.vec<4> {hev.public}) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %p = hev.spec.mul %a, %b : !hev.vec<4>
  %s = hev.spec.sum %p : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

// -----

// Relinearization is placed lazily: the two squares are added as size-3 ciphertexts and
// relinearized once, before the result leaves.
// CHECK-LABEL: func.func @squares_synth(
// CHECK:         hev.multiply %{{.*}} : !hev.ct<2> -> !hev.ct<2, size = 3>
// CHECK:         hev.multiply %{{.*}} : !hev.ct<2> -> !hev.ct<2, size = 3>
// CHECK-NEXT:    hev.add %{{.*}} : !hev.ct<2, size = 3>
// CHECK-NEXT:    %v2_relin = hev.relinearize %v2 : !hev.ct<2, size = 3> -> !hev.ct<2>
// CHECK-NEXT:    hev.decrypt %v2_relin
// CHECK-NOT:     hev.relinearize
func.func @squares(%a: !hev.vec<2>, %b: !hev.vec<2>) -> !hev.vec<2> attributes {hev.spec} {
  %aa = hev.spec.mul %a, %a : !hev.vec<2>
  %bb = hev.spec.mul %b, %b : !hev.vec<2>
  %s = hev.spec.add %aa, %bb : !hev.vec<2>
  func.return %s : !hev.vec<2>
}

// -----

// A spec that only moves data is a rotation.
// CHECK-LABEL: func.func @shift_synth(
// CHECK-NEXT:    %x_ct = hev.encrypt %x : !hev.vec<8> -> !hev.ct<8>
// CHECK-NEXT:    %r0 = hev.rotate %x_ct by 3 : !hev.ct<8>
// CHECK-NEXT:    %out = hev.decrypt %r0 : !hev.ct<8> -> !hev.vec<8>
func.func @shift(%x: !hev.vec<8>) -> !hev.vec<8> attributes {hev.spec} {
  %s = hev.spec.shift %x by 1 : !hev.vec<8>
  %t = hev.spec.shift %s by 2 : !hev.vec<8>
  func.return %t : !hev.vec<8>
}

// -----

// A program that exists already is kept: synthesis is skipped for that spec.
// CHECK-LABEL: func.func @kept_synth(
// CHECK-NEXT:    hev.encrypt
// CHECK-NEXT:    hev.add
// CHECK-NEXT:    hev.decrypt
func.func @kept(%x: !hev.vec<2>) -> !hev.vec<2> attributes {hev.spec} {
  %s = hev.spec.add %x, %x : !hev.vec<2>
  func.return %s : !hev.vec<2>
}
func.func @kept_synth(%x: !hev.vec<2>) -> !hev.vec<2> attributes {hev.implements = @kept} {
  %c = hev.encrypt %x : !hev.vec<2> -> !hev.ct<2>
  %s = hev.add %c, %c : !hev.ct<2>
  %o = hev.decrypt %s : !hev.ct<2> -> !hev.vec<2>
  func.return %o : !hev.vec<2>
}
