// The sum of 16 values into slot 0 of a 64-slot vector whose slots 16..63 are zero padding
// (hev.padded). A full-vector log tree rotates 6 times; over the 16 data slots, 4 suffice:
// slot 0 of x + rot(x, 1), then + rot(., 2), + rot(., 4), + rot(., 8) is the sum of 0..15.

// The spec (examples/he/kernels.py builds the same function in Python).
func.func @sum16_padded(%x: !hev.vec<64> {hev.padded = array<i64: 0, 16>}) -> (!hev.vec<64> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %0 = hev.spec.sum %x : !hev.vec<64>
  func.return %0 : !hev.vec<64>
}

// Hand-written baseline: the full-vector rotate-and-add tree (6 rotations), blind to the padding.
func.func @sum16_padded_baseline(%x: !hev.vec<64> {hev.padded = array<i64: 0, 16>}) -> (!hev.vec<64> {hev.slots = array<i64: 0>}) attributes {hev.implements = @sum16_padded} {
  %c = hev.encrypt %x : !hev.vec<64> -> !hev.ct<64>
  %r32 = hev.rotate %c by 32 : !hev.ct<64>
  %s32 = hev.add %c, %r32 : !hev.ct<64>
  %r16 = hev.rotate %s32 by 16 : !hev.ct<64>
  %s16 = hev.add %s32, %r16 : !hev.ct<64>
  %r8 = hev.rotate %s16 by 8 : !hev.ct<64>
  %s8 = hev.add %s16, %r8 : !hev.ct<64>
  %r4 = hev.rotate %s8 by 4 : !hev.ct<64>
  %s4 = hev.add %s8, %r4 : !hev.ct<64>
  %r2 = hev.rotate %s4 by 2 : !hev.ct<64>
  %s2 = hev.add %s4, %r2 : !hev.ct<64>
  %r1 = hev.rotate %s2 by 1 : !hev.ct<64>
  %s1 = hev.add %s2, %r1 : !hev.ct<64>
  %out = hev.decrypt %s1 : !hev.ct<64> -> !hev.vec<64>
  func.return %out : !hev.vec<64>
}
