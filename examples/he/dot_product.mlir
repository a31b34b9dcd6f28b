// Dot product of a secret 8-vector with the server's plaintext 8-vector, into slot 0.

func.func @dot_product(%a: !hev.vec<8>, %b: !hev.vec<8> {hev.public}) -> (!hev.vec<8> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %p = hev.spec.mul %a, %b : !hev.vec<8>
  %s = hev.spec.sum %p : !hev.vec<8>
  func.return %s : !hev.vec<8>
}

// Hand-written baseline: multiply, then a rotate-and-add tree (halves, quarters, pairs).
func.func @dot_product_baseline(%a: !hev.vec<8>, %b: !hev.vec<8> {hev.public}) -> (!hev.vec<8> {hev.slots = array<i64: 0>}) attributes {hev.implements = @dot_product} {
  %ca = hev.encrypt %a : !hev.vec<8> -> !hev.ct<8>
  %pb = hev.encode %b : !hev.vec<8> -> !hev.pt<8>
  %m = hev.multiply_plain %ca, %pb : !hev.ct<8>, !hev.pt<8>
  %r4 = hev.rotate %m by 4 : !hev.ct<8>
  %s4 = hev.add %m, %r4 : !hev.ct<8>
  %r2 = hev.rotate %s4 by 2 : !hev.ct<8>
  %s2 = hev.add %s4, %r2 : !hev.ct<8>
  %r1 = hev.rotate %s2 by 1 : !hev.ct<8>
  %s1 = hev.add %s2, %r1 : !hev.ct<8>
  %out = hev.decrypt %s1 : !hev.ct<8> -> !hev.vec<8>
  func.return %out : !hev.vec<8>
}

// Porcupine's program: the same tree with the rotations in the order 2, 4, 1.
func.func @dot_product_porcupine(%a: !hev.vec<8>, %b: !hev.vec<8> {hev.public}) -> (!hev.vec<8> {hev.slots = array<i64: 0>}) attributes {hev.implements = @dot_product} {
  %c0 = hev.encrypt %a : !hev.vec<8> -> !hev.ct<8>
  %p0 = hev.encode %b : !hev.vec<8> -> !hev.pt<8>
  %c1 = hev.multiply_plain %c0, %p0 : !hev.ct<8>, !hev.pt<8>
  %c2 = hev.rotate %c1 by 2 : !hev.ct<8>
  %c3 = hev.add %c1, %c2 : !hev.ct<8>
  %c4 = hev.rotate %c3 by 4 : !hev.ct<8>
  %c5 = hev.add %c3, %c4 : !hev.ct<8>
  %c6 = hev.rotate %c5 by 1 : !hev.ct<8>
  %c7 = hev.add %c5, %c6 : !hev.ct<8>
  %out = hev.decrypt %c7 : !hev.ct<8> -> !hev.vec<8>
  func.return %out : !hev.vec<8>
}
