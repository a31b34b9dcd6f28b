// CMD: tessel-opt %s -o %o -p 'he-synthesize{progress=false}'
// ERROR: spec @same returns its input unchanged; there is nothing to compute
func.func @same(%a: !hev.vec<4>) -> !hev.vec<4> attributes {hev.spec} {
  func.return %a : !hev.vec<4>
}
