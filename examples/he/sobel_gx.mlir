// Horizontal Sobel gradient of a 64x64 image (4096 slots, wrapping around):
//   [-1 0 1]
//   [-2 0 2]  (rows i-1, i, i+1; columns j-1, j, j+1)
//   [-1 0 1]

func.func @sobel_gx(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.spec} {
  %ur = hev.spec.shift %x by -63 : !hev.vec<4096>
  %ul = hev.spec.shift %x by -65 : !hev.vec<4096>
  %top = hev.spec.sub %ur, %ul : !hev.vec<4096>
  %r = hev.spec.shift %x by 1 : !hev.vec<4096>
  %l = hev.spec.shift %x by -1 : !hev.vec<4096>
  %mid = hev.spec.sub %r, %l : !hev.vec<4096>
  %two = hev.spec.const 2 : !hev.vec<4096>
  %mid2 = hev.spec.mul %two, %mid : !hev.vec<4096>
  %s = hev.spec.add %top, %mid2 : !hev.vec<4096>
  %dr = hev.spec.shift %x by 65 : !hev.vec<4096>
  %dl = hev.spec.shift %x by 63 : !hev.vec<4096>
  %bot = hev.spec.sub %dr, %dl : !hev.vec<4096>
  %gx = hev.spec.add %s, %bot : !hev.vec<4096>
  func.return %gx : !hev.vec<4096>
}

// Hand-written baseline: one rotation per non-zero tap, the middle row doubled by an
// addition (6 rotations, 6 additions/subtractions).
func.func @sobel_gx_baseline(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.implements = @sobel_gx} {
  %c = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %ur = hev.rotate %c by -63 : !hev.ct<4096>
  %ul = hev.rotate %c by -65 : !hev.ct<4096>
  %r = hev.rotate %c by 1 : !hev.ct<4096>
  %l = hev.rotate %c by -1 : !hev.ct<4096>
  %dr = hev.rotate %c by 65 : !hev.ct<4096>
  %dl = hev.rotate %c by 63 : !hev.ct<4096>
  %top = hev.sub %ur, %ul : !hev.ct<4096>
  %mid = hev.sub %r, %l : !hev.ct<4096>
  %mid2 = hev.add %mid, %mid : !hev.ct<4096>
  %bot = hev.sub %dr, %dl : !hev.ct<4096>
  %s = hev.add %top, %mid2 : !hev.ct<4096>
  %gx = hev.add %s, %bot : !hev.ct<4096>
  %out = hev.decrypt %gx : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}

// Porcupine's program: the separable form [1 2 1]^T (x) [-1 0 1] (4 rotations).
func.func @sobel_gx_porcupine(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.implements = @sobel_gx} {
  %c0 = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %c1 = hev.rotate %c0 by 64 : !hev.ct<4096>
  %c2 = hev.add %c0, %c1 : !hev.ct<4096>
  %c3 = hev.rotate %c2 by -64 : !hev.ct<4096>
  %c4 = hev.add %c2, %c3 : !hev.ct<4096>
  %c5 = hev.rotate %c4 by 1 : !hev.ct<4096>
  %c6 = hev.rotate %c4 by -1 : !hev.ct<4096>
  %c7 = hev.sub %c5, %c6 : !hev.ct<4096>
  %out = hev.decrypt %c7 : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}
