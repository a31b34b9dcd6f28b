// he-synthesize gives the search the structure of the spec: linear stencils are factored into
// chains of rotate-and-add steps (separable stencils, log trees, rotated partial sums), sums
// become log trees (over the data window of a zero-padded layout), and the lower bounds stop
// the search as soon as they meet the best program. Output masks only pick which slot is
// checked (every hev op commutes with rotating the inputs).

// RUN: %tessel-opt %s --split-input-file -p 'he-synthesize{costs="%S/Inputs/costs.json" progress=false budget=3}' | filecheck %s
// RUN: %tessel-opt %s --split-input-file -p 'he-synthesize{costs="%S/Inputs/costs.json" budget=3}' 2>&1 >/dev/null | filecheck %s --check-prefix=PROGRESS

// A 3x3 Gaussian [1 2 1; 2 4 2; 1 2 1] on an 8x8 image: 8 taps away from the pixel, 4
// rotations, (1 + z^W)(1 + z^-W)(1 + z)(1 + z^-1), each step rotating the partial sum so far.
// Four rotations are the fewest that can read 9 slots: optimal at once, no solver query.
// CHECK-LABEL: func.func @gaussian_synth(
// CHECK-SAME:    optimal = true
// CHECK-NEXT:    %x_ct = hev.encrypt %x
// CHECK-NEXT:    %r0 = hev.rotate %x_ct by {{-?[18]}} : !hev.ct<64>
// CHECK-NEXT:    %v0 = hev.add %x_ct, %r0
// CHECK-NEXT:    %r1 = hev.rotate %v0 by {{-?[18]}} : !hev.ct<64>
// CHECK-NEXT:    %v1 = hev.add %v0, %r1
// CHECK-NEXT:    %r2 = hev.rotate %v1 by {{-?[18]}} : !hev.ct<64>
// CHECK-NEXT:    %v2 = hev.add %v1, %r2
// CHECK-NEXT:    %r3 = hev.rotate %v2 by {{-?[18]}} : !hev.ct<64>
// CHECK-NEXT:    %v3 = hev.add %v2, %r3
// CHECK-NEXT:    %out = hev.decrypt %v3
// PROGRESS: @gaussian: 4 operations, {{.*}}optimal (proven: the lower bound meets it), {{[0-9.]+}} s, 0 z3 queries
func.func @gaussian(%x: !hev.vec<64> {hev.image = array<i64: 8, 8>}) -> !hev.vec<64> attributes {hev.spec} {
  %ul = hev.spec.shift %x by -9 : !hev.vec<64>
  %ur = hev.spec.shift %x by -7 : !hev.vec<64>
  %dl = hev.spec.shift %x by 7 : !hev.vec<64>
  %dr = hev.spec.shift %x by 9 : !hev.vec<64>
  %c0 = hev.spec.add %ul, %ur : !hev.vec<64>
  %c1 = hev.spec.add %c0, %dl : !hev.vec<64>
  %corners = hev.spec.add %c1, %dr : !hev.vec<64>
  %u = hev.spec.shift %x by -8 : !hev.vec<64>
  %l = hev.spec.shift %x by -1 : !hev.vec<64>
  %r = hev.spec.shift %x by 1 : !hev.vec<64>
  %d = hev.spec.shift %x by 8 : !hev.vec<64>
  %e0 = hev.spec.add %u, %l : !hev.vec<64>
  %e1 = hev.spec.add %e0, %r : !hev.vec<64>
  %edges = hev.spec.add %e1, %d : !hev.vec<64>
  %two = hev.spec.const 2 : !hev.vec<64>
  %four = hev.spec.const 4 : !hev.vec<64>
  %e2 = hev.spec.mul %two, %edges : !hev.vec<64>
  %x4 = hev.spec.mul %four, %x : !hev.vec<64>
  %s0 = hev.spec.add %corners, %e2 : !hev.vec<64>
  %s1 = hev.spec.add %s0, %x4 : !hev.vec<64>
  func.return %s1 : !hev.vec<64>
}

// -----

// A 3x3 box sum wanted at the 6x6 interior pixels of an 8x8 image only (the border wraps
// around and is not wanted). The mask removes constraints, it adds no work: one slot is
// checked for all 36 (and the exact check expands one).
// CHECK-LABEL: func.func @box3_interior_synth(
// CHECK-SAME:    -> (!hev.vec<64> {hev.slots = array<i64: 9, 10, 11, 12, 13, 14, 17,
// CHECK-SAME:    optimal = true
// CHECK-COUNT-4: hev.rotate
// CHECK-NOT:     hev.rotate
// CHECK:         %out = hev.decrypt
// PROGRESS: @box3_interior: 4 operations, {{.*}}optimal (proven: the lower bound meets it)
// PROGRESS: @box3_interior: verified exactly mod 65537 at 36 output slots (1 expanded, the others alike by rotation; {{[0-9.]+}} s)
func.func @box3_interior(%x: !hev.vec<64> {hev.image = array<i64: 8, 8>}) -> (!hev.vec<64> {hev.slots = array<i64: 9, 10, 11, 12, 13, 14, 17, 18, 19, 20, 21, 22, 25, 26, 27, 28, 29, 30, 33, 34, 35, 36, 37, 38, 41, 42, 43, 44, 45, 46, 49, 50, 51, 52, 53, 54>}) attributes {hev.spec} {
  %a = hev.spec.shift %x by -9 : !hev.vec<64>
  %b = hev.spec.shift %x by -8 : !hev.vec<64>
  %c = hev.spec.shift %x by -7 : !hev.vec<64>
  %d = hev.spec.shift %x by -1 : !hev.vec<64>
  %e = hev.spec.shift %x by 1 : !hev.vec<64>
  %f = hev.spec.shift %x by 7 : !hev.vec<64>
  %g = hev.spec.shift %x by 8 : !hev.vec<64>
  %h = hev.spec.shift %x by 9 : !hev.vec<64>
  %s0 = hev.spec.add %a, %b : !hev.vec<64>
  %s1 = hev.spec.add %s0, %c : !hev.vec<64>
  %s2 = hev.spec.add %s1, %d : !hev.vec<64>
  %s3 = hev.spec.add %s2, %x : !hev.vec<64>
  %s4 = hev.spec.add %s3, %e : !hev.vec<64>
  %s5 = hev.spec.add %s4, %f : !hev.vec<64>
  %s6 = hev.spec.add %s5, %g : !hev.vec<64>
  %s7 = hev.spec.add %s6, %h : !hev.vec<64>
  func.return %s7 : !hev.vec<64>
}

// -----

// The sum of 16 values into slot 0 of a 64-slot vector whose other slots are zero padding:
// the 4-rotation log tree over the data window (a full-vector sum rotates 6 times).
// CHECK-LABEL: func.func @sum16_synth(
// CHECK-SAME:    optimal = true
// CHECK-NEXT:    %x_ct = hev.encrypt %x
// CHECK-NEXT:    %r0 = hev.rotate %x_ct by 1
// CHECK-NEXT:    %v0 = hev.add %x_ct, %r0
// CHECK-NEXT:    %r1 = hev.rotate %v0 by 2
// CHECK-NEXT:    %v1 = hev.add %v0, %r1
// CHECK-NEXT:    %r2 = hev.rotate %v1 by 4
// CHECK-NEXT:    %v2 = hev.add %v1, %r2
// CHECK-NEXT:    %r3 = hev.rotate %v2 by 8
// CHECK-NEXT:    %v3 = hev.add %v2, %r3
// CHECK-NEXT:    %out = hev.decrypt %v3
func.func @sum16(%x: !hev.vec<64> {hev.padded = array<i64: 0, 16>}) -> (!hev.vec<64> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %s = hev.spec.sum %x : !hev.vec<64>
  func.return %s : !hev.vec<64>
}

// -----

// The same sum without the padding declared: every slot may hold data, 6 rotations.
// CHECK-LABEL: func.func @sum64_synth(
// CHECK-SAME:    optimal = true
// CHECK-COUNT-6: hev.rotate
// CHECK-NOT:     hev.rotate
// CHECK:         %out = hev.decrypt
func.func @sum64(%x: !hev.vec<64>) -> (!hev.vec<64> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %s = hev.spec.sum %x : !hev.vec<64>
  func.return %s : !hev.vec<64>
}

// -----

// A sliding window of 8 written tap by tap: (1 + z)(1 + z^2)(1 + z^4), 3 rotations.
// CHECK-LABEL: func.func @window8_synth(
// CHECK-SAME:    optimal = true
// CHECK-NEXT:    %x_ct = hev.encrypt %x
// CHECK-NEXT:    %r0 = hev.rotate %x_ct by {{[124]}}
// CHECK-NEXT:    %v0 = hev.add %x_ct, %r0
// CHECK-NEXT:    %r1 = hev.rotate %v0 by {{[124]}}
// CHECK-NEXT:    %v1 = hev.add %v0, %r1
// CHECK-NEXT:    %r2 = hev.rotate %v1 by {{[124]}}
// CHECK-NEXT:    %v2 = hev.add %v1, %r2
// CHECK-NEXT:    %out = hev.decrypt %v2
func.func @window8(%x: !hev.vec<256>) -> !hev.vec<256> attributes {hev.spec} {
  %x1 = hev.spec.shift %x by 1 : !hev.vec<256>
  %x2 = hev.spec.shift %x by 2 : !hev.vec<256>
  %x3 = hev.spec.shift %x by 3 : !hev.vec<256>
  %x4 = hev.spec.shift %x by 4 : !hev.vec<256>
  %x5 = hev.spec.shift %x by 5 : !hev.vec<256>
  %x6 = hev.spec.shift %x by 6 : !hev.vec<256>
  %x7 = hev.spec.shift %x by 7 : !hev.vec<256>
  %s1 = hev.spec.add %x, %x1 : !hev.vec<256>
  %s2 = hev.spec.add %s1, %x2 : !hev.vec<256>
  %s3 = hev.spec.add %s2, %x3 : !hev.vec<256>
  %s4 = hev.spec.add %s3, %x4 : !hev.vec<256>
  %s5 = hev.spec.add %s4, %x5 : !hev.vec<256>
  %s6 = hev.spec.add %s5, %x6 : !hev.vec<256>
  %s7 = hev.spec.add %s6, %x7 : !hev.vec<256>
  func.return %s7 : !hev.vec<256>
}

// -----

// A polynomial written term by term, y - (a*x*x + b*x + c): three products as written, two
// by the Horner scheme the structured lowering tries, (y - c) - (a*x + b)*x.
// CHECK-LABEL: func.func @horner_synth(
// CHECK-COUNT-2: hev.multiply
// CHECK-NOT:     hev.multiply
// CHECK:         %out = hev.decrypt
// PROGRESS: @horner [{{ *[0-9.]+}}s] structured program: 5 operations, cost {{[0-9]+}} (0 rot, 2 mul, 0 mul_plain)
func.func @horner(%a: !hev.vec<4>, %b: !hev.vec<4>, %c: !hev.vec<4>, %x: !hev.vec<4>, %y: !hev.vec<4>) -> !hev.vec<4> attributes {hev.spec} {
  %xx = hev.spec.mul %x, %x : !hev.vec<4>
  %axx = hev.spec.mul %a, %xx : !hev.vec<4>
  %bx = hev.spec.mul %b, %x : !hev.vec<4>
  %s0 = hev.spec.add %axx, %bx : !hev.vec<4>
  %s1 = hev.spec.add %s0, %c : !hev.vec<4>
  %r = hev.spec.sub %y, %s1 : !hev.vec<4>
  func.return %r : !hev.vec<4>
}
