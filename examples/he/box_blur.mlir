// Box blur (2x2) of a 64x64 image packed row-major in one ciphertext (4096 slots):
//   out[i,j] = x[i,j] + x[i-1,j] + x[i,j-1] + x[i-1,j-1]
// with rows and columns wrapping around (the flat index is cyclic, as in Porcupine and
// HECO's port). `tessel-opt box_blur.mlir -p he-synthesize` adds @box_blur_synth.

// The spec: what the kernel computes, on cleartext vectors (examples/he/kernels.py
// builds the same function in Python).
func.func @box_blur(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.spec} {
  %up = hev.spec.shift %x by -64 : !hev.vec<4096>
  %s0 = hev.spec.add %x, %up : !hev.vec<4096>
  %left = hev.spec.shift %x by -1 : !hev.vec<4096>
  %s1 = hev.spec.add %s0, %left : !hev.vec<4096>
  %diag = hev.spec.shift %x by -65 : !hev.vec<4096>
  %s2 = hev.spec.add %s1, %diag : !hev.vec<4096>
  func.return %s2 : !hev.vec<4096>
}

// Hand-written baseline: rotate the image to each tap and add (3 rotations, 3 additions).
func.func @box_blur_baseline(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.implements = @box_blur} {
  %c = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %up = hev.rotate %c by -64 : !hev.ct<4096>
  %left = hev.rotate %c by -1 : !hev.ct<4096>
  %diag = hev.rotate %c by -65 : !hev.ct<4096>
  %s0 = hev.add %c, %up : !hev.ct<4096>
  %s1 = hev.add %s0, %left : !hev.ct<4096>
  %s2 = hev.add %s1, %diag : !hev.ct<4096>
  %out = hev.decrypt %s2 : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}

// Porcupine's synthesized program (PLDI'21, as ported to SEAL by HECO): sum a column pair,
// then a row pair (2 rotations, 2 additions).
func.func @box_blur_porcupine(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.implements = @box_blur} {
  %c0 = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %c1 = hev.rotate %c0 by -64 : !hev.ct<4096>
  %c2 = hev.add %c0, %c1 : !hev.ct<4096>
  %c3 = hev.rotate %c2 by -1 : !hev.ct<4096>
  %c4 = hev.add %c2, %c3 : !hev.ct<4096>
  %out = hev.decrypt %c4 : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}
