// Vertical Sobel gradient of a 64x64 image (4096 slots, wrapping around):
//   [-1 -2 -1]
//   [ 0  0  0]  (rows i-1, i, i+1; columns j-1, j, j+1)
//   [ 1  2  1]

func.func @sobel_gy(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.spec} {
  %dl = hev.spec.shift %x by 63 : !hev.vec<4096>
  %ul = hev.spec.shift %x by -65 : !hev.vec<4096>
  %left = hev.spec.sub %dl, %ul : !hev.vec<4096>
  %d = hev.spec.shift %x by 64 : !hev.vec<4096>
  %u = hev.spec.shift %x by -64 : !hev.vec<4096>
  %mid = hev.spec.sub %d, %u : !hev.vec<4096>
  %two = hev.spec.const 2 : !hev.vec<4096>
  %mid2 = hev.spec.mul %two, %mid : !hev.vec<4096>
  %s = hev.spec.add %left, %mid2 : !hev.vec<4096>
  %dr = hev.spec.shift %x by 65 : !hev.vec<4096>
  %ur = hev.spec.shift %x by -63 : !hev.vec<4096>
  %right = hev.spec.sub %dr, %ur : !hev.vec<4096>
  %gy = hev.spec.add %s, %right : !hev.vec<4096>
  func.return %gy : !hev.vec<4096>
}

// Hand-written baseline: one rotation per non-zero tap (6 rotations, 6 additions/subtractions).
func.func @sobel_gy_baseline(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.implements = @sobel_gy} {
  %c = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %dl = hev.rotate %c by 63 : !hev.ct<4096>
  %ul = hev.rotate %c by -65 : !hev.ct<4096>
  %d = hev.rotate %c by 64 : !hev.ct<4096>
  %u = hev.rotate %c by -64 : !hev.ct<4096>
  %dr = hev.rotate %c by 65 : !hev.ct<4096>
  %ur = hev.rotate %c by -63 : !hev.ct<4096>
  %left = hev.sub %dl, %ul : !hev.ct<4096>
  %mid = hev.sub %d, %u : !hev.ct<4096>
  %mid2 = hev.add %mid, %mid : !hev.ct<4096>
  %right = hev.sub %dr, %ur : !hev.ct<4096>
  %s = hev.add %left, %mid2 : !hev.ct<4096>
  %gy = hev.add %s, %right : !hev.ct<4096>
  %out = hev.decrypt %gy : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}

// Porcupine's program: [-1 0 1]^T (x) [1 2 1], Sobel Gx with rows and columns swapped.
func.func @sobel_gy_porcupine(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.implements = @sobel_gy} {
  %c0 = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %c1 = hev.rotate %c0 by 1 : !hev.ct<4096>
  %c2 = hev.add %c0, %c1 : !hev.ct<4096>
  %c3 = hev.rotate %c2 by -1 : !hev.ct<4096>
  %c4 = hev.add %c2, %c3 : !hev.ct<4096>
  %c5 = hev.rotate %c4 by 64 : !hev.ct<4096>
  %c6 = hev.rotate %c4 by -64 : !hev.ct<4096>
  %c7 = hev.sub %c5, %c6 : !hev.ct<4096>
  %out = hev.decrypt %c7 : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}
