// CMD: tessel-opt %s -o %o -p 'he-synthesize{progress=false max-length=2 budget=20}'
// ERROR: he-synthesize: @l2 needs at least 3 operations (its output reads 8 input slots), more than
func.func @l2(%a: !hev.vec<4>, %b: !hev.vec<4>) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %d = hev.spec.sub %a, %b : !hev.vec<4>
  %sq = hev.spec.mul %d, %d : !hev.vec<4>
  %s = hev.spec.sum %sq : !hev.vec<4>
  func.return %s : !hev.vec<4>
}
