// CMD: tessel-opt %s -o %o -p 'he-synthesize{progress=false max-length=3 budget=30}'
// ERROR: he-synthesize: unsatisfiable: no program of at most 3 operations computes @l2 with add, su
func.func @l2(%a: !hev.vec<4>, %b: !hev.vec<4>) -> (!hev.vec<4> {hev.slots = array<i64: 0>}) attributes {hev.spec} {
  %d = hev.spec.sub %a, %b : !hev.vec<4>
  %sq = hev.spec.mul %d, %d : !hev.vec<4>
  %s = hev.spec.sum %sq : !hev.vec<4>
  func.return %s : !hev.vec<4>
}
