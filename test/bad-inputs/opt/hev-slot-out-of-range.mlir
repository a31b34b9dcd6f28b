// CMD: tessel-opt %s -o %o -p 'he-synthesize{progress=false}'
// ERROR: @s: hev.slots names slot 9, outside the 4 slots of the result
func.func @s(%a: !hev.vec<4>) -> (!hev.vec<4> {hev.slots = array<i64: 9>}) attributes {hev.spec} {
  %s = hev.spec.sum %a : !hev.vec<4>
  func.return %s : !hev.vec<4>
}
