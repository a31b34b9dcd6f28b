// Box blur (2x2) on a 64x64 image packed row-major in one ciphertext (4096 slots):
// out[i,j] = x[i,j] + x[i-1,j] + x[i,j-1] + x[i-1,j-1], rows and columns wrapping around
// (the flat index is cyclic, as in Porcupine and HECO's port).

// The spec: what the kernel computes, on cleartext vectors.
func.func @box_blur(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.spec} {
  %up = hev.spec.shift %x by -64 : !hev.vec<4096>
  %left = hev.spec.shift %x by -1 : !hev.vec<4096>
  %diag = hev.spec.shift %x by -65 : !hev.vec<4096>
  %s0 = hev.spec.add %x, %up : !hev.vec<4096>
  %s1 = hev.spec.add %s0, %left : !hev.vec<4096>
  %s2 = hev.spec.add %s1, %diag : !hev.vec<4096>
  func.return %s2 : !hev.vec<4096>
}
