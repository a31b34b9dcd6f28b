// Squared Roberts cross gradient of a 64x64 image (4096 slots, wrapping around):
//   out[i,j] = (x[i+1,j+1] - x[i,j])^2 + (x[i+1,j] - x[i,j+1])^2

func.func @roberts_cross(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.spec} {
  %dr = hev.spec.shift %x by 65 : !hev.vec<4096>
  %d1 = hev.spec.sub %dr, %x : !hev.vec<4096>
  %d = hev.spec.shift %x by 64 : !hev.vec<4096>
  %r = hev.spec.shift %x by 1 : !hev.vec<4096>
  %d2 = hev.spec.sub %d, %r : !hev.vec<4096>
  %s1 = hev.spec.mul %d1, %d1 : !hev.vec<4096>
  %s2 = hev.spec.mul %d2, %d2 : !hev.vec<4096>
  %g = hev.spec.add %s1, %s2 : !hev.vec<4096>
  func.return %g : !hev.vec<4096>
}

// Hand-written baseline: the formula, relinearizing after each square.
func.func @roberts_cross_baseline(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.implements = @roberts_cross} {
  %c = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %dr = hev.rotate %c by 65 : !hev.ct<4096>
  %d = hev.rotate %c by 64 : !hev.ct<4096>
  %r = hev.rotate %c by 1 : !hev.ct<4096>
  %d1 = hev.sub %dr, %c : !hev.ct<4096>
  %d2 = hev.sub %d, %r : !hev.ct<4096>
  %s1_3 = hev.multiply %d1, %d1 : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %s1 = hev.relinearize %s1_3 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %s2_3 = hev.multiply %d2, %d2 : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %s2 = hev.relinearize %s2_3 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %g = hev.add %s1, %s2 : !hev.ct<4096>
  %out = hev.decrypt %g : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}

// Porcupine's program (with the square(c4) -> square(c3) typo HECO found, fixed): the same
// operations in another order.
func.func @roberts_cross_porcupine(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.implements = @roberts_cross} {
  %c0 = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %c1 = hev.rotate %c0 by 65 : !hev.ct<4096>
  %c2 = hev.sub %c1, %c0 : !hev.ct<4096>
  %c3 = hev.multiply %c2, %c2 : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %c4 = hev.relinearize %c3 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %c5 = hev.rotate %c0 by 64 : !hev.ct<4096>
  %c6 = hev.rotate %c0 by 1 : !hev.ct<4096>
  %c7 = hev.sub %c5, %c6 : !hev.ct<4096>
  %c8 = hev.multiply %c7, %c7 : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %c9 = hev.relinearize %c8 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %c10 = hev.add %c4, %c9 : !hev.ct<4096>
  %out = hev.decrypt %c10 : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}
