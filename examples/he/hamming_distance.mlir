// Hamming distance of two secret 4-bit vectors, into slot 0: the number of positions where
// they differ, with a xor b written arithmetically as a + b - 2ab.

func.func @hamming_distance(%a: !hev.vec<4> {hev.domain = #hev<domain bits>}, %b: !hev.vec<4> {hev.domain = #hev<domain bits>}) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %sum = hev.spec.add %a, %b : !hev.vec<4>
  %and = hev.spec.mul %a, %b : !hev.vec<4>
  %two = hev.spec.const 2 : !hev.vec<4>
  %twice = hev.spec.mul %two, %and : !hev.vec<4>
  %xor = hev.spec.sub %sum, %twice : !hev.vec<4>
  %d = hev.spec.sum %xor : !hev.vec<4>
  func.return %d : !hev.vec<4>
}

// Hand-written baseline: a + b - 2ab slot-wise (doubling by an addition), then a
// rotate-and-add tree.
func.func @hamming_distance_baseline(%a: !hev.vec<4> {hev.domain = #hev<domain bits>}, %b: !hev.vec<4> {hev.domain = #hev<domain bits>}) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.implements = @hamming_distance} {
  %ca = hev.encrypt %a : !hev.vec<4> -> !hev.ct<4>
  %cb = hev.encrypt %b : !hev.vec<4> -> !hev.ct<4>
  %sum = hev.add %ca, %cb : !hev.ct<4>
  %and3 = hev.multiply %ca, %cb : !hev.ct<4> -> !hev.ct<4, size = 3>
  %and = hev.relinearize %and3 : !hev.ct<4, size = 3> -> !hev.ct<4>
  %twice = hev.add %and, %and : !hev.ct<4>
  %xor = hev.sub %sum, %twice : !hev.ct<4>
  %r2 = hev.rotate %xor by 2 : !hev.ct<4>
  %s2 = hev.add %xor, %r2 : !hev.ct<4>
  %r1 = hev.rotate %s2 by 1 : !hev.ct<4>
  %s1 = hev.add %s2, %r1 : !hev.ct<4>
  %out = hev.decrypt %s1 : !hev.ct<4> -> !hev.vec<4>
  func.return %out : !hev.vec<4>
}

// Porcupine's program: s = a + b; (2 - s) * s, which is a xor b on bits; then the tree.
func.func @hamming_distance_porcupine(%a: !hev.vec<4> {hev.domain = #hev<domain bits>}, %b: !hev.vec<4> {hev.domain = #hev<domain bits>}) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.implements = @hamming_distance} {
  %c0 = hev.encrypt %a : !hev.vec<4> -> !hev.ct<4>
  %c1 = hev.encrypt %b : !hev.vec<4> -> !hev.ct<4>
  %two = hev.constant 2 : !hev.pt<4>
  %c2 = hev.add %c0, %c1 : !hev.ct<4>
  %c3 = hev.negate %c2 : !hev.ct<4>
  %c4 = hev.add_plain %c3, %two : !hev.ct<4>, !hev.pt<4>
  %c5 = hev.multiply %c4, %c2 : !hev.ct<4> -> !hev.ct<4, size = 3>
  %c6 = hev.relinearize %c5 : !hev.ct<4, size = 3> -> !hev.ct<4>
  %c7 = hev.rotate %c6 by 2 : !hev.ct<4>
  %c8 = hev.add %c6, %c7 : !hev.ct<4>
  %c9 = hev.rotate %c8 by 1 : !hev.ct<4>
  %c10 = hev.add %c8, %c9 : !hev.ct<4>
  %out = hev.decrypt %c10 : !hev.ct<4> -> !hev.vec<4>
  func.return %out : !hev.vec<4>
}
