// Squared Euclidean distance of two secret 4-vectors, into slot 0.

func.func @l2_distance(%a: !hev.vec<4>, %b: !hev.vec<4>) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %d = hev.spec.sub %a, %b : !hev.vec<4>
  %sq = hev.spec.mul %d, %d : !hev.vec<4>
  %s = hev.spec.sum %sq : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

// Hand-written baseline: subtract, square, rotate-and-add tree.
func.func @l2_distance_baseline(%a: !hev.vec<4>, %b: !hev.vec<4>) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.implements = @l2_distance} {
  %ca = hev.encrypt %a : !hev.vec<4> -> !hev.ct<4>
  %cb = hev.encrypt %b : !hev.vec<4> -> !hev.ct<4>
  %d = hev.sub %ca, %cb : !hev.ct<4>
  %sq3 = hev.multiply %d, %d : !hev.ct<4> -> !hev.ct<4, size = 3>
  %sq = hev.relinearize %sq3 : !hev.ct<4, size = 3> -> !hev.ct<4>
  %r2 = hev.rotate %sq by 2 : !hev.ct<4>
  %s2 = hev.add %sq, %r2 : !hev.ct<4>
  %r1 = hev.rotate %s2 by 1 : !hev.ct<4>
  %s1 = hev.add %s2, %r1 : !hev.ct<4>
  %out = hev.decrypt %s1 : !hev.ct<4> -> !hev.vec<4>
  func.return %out : !hev.vec<4>
}

// Porcupine's program (with the rotate(c4, 1) -> rotate(c5, 1) typo HECO found, fixed).
func.func @l2_distance_porcupine(%a: !hev.vec<4>, %b: !hev.vec<4>) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.implements = @l2_distance} {
  %c0 = hev.encrypt %a : !hev.vec<4> -> !hev.ct<4>
  %c1 = hev.encrypt %b : !hev.vec<4> -> !hev.ct<4>
  %c2 = hev.sub %c0, %c1 : !hev.ct<4>
  %c3 = hev.multiply %c2, %c2 : !hev.ct<4> -> !hev.ct<4, size = 3>
  %c4 = hev.relinearize %c3 : !hev.ct<4, size = 3> -> !hev.ct<4>
  %c5 = hev.rotate %c4 by 2 : !hev.ct<4>
  %c6 = hev.add %c4, %c5 : !hev.ct<4>
  %c7 = hev.rotate %c6 by 1 : !hev.ct<4>
  %c8 = hev.add %c6, %c7 : !hev.ct<4>
  %out = hev.decrypt %c8 : !hev.ct<4> -> !hev.vec<4>
  func.return %out : !hev.vec<4>
}
