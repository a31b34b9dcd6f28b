// CMD: tessel-opt %s -o %o -p 'he-synthesize{progress=false}'
// ERROR: 'hev.spec.mul' computes on public values only (hev.public inputs and constants); a BFV pro
func.func @p(%a: !hev.vec<4>, %b: !hev.vec<4> {hev.public}, %c: !hev.vec<4> {hev.public}) -> !hev.vec<4> attributes {hev.spec} {
  %bc = hev.spec.mul %b, %c : !hev.vec<4>
  %r = hev.spec.add %a, %bc : !hev.vec<4>
  func.return %r : !hev.vec<4>
}
