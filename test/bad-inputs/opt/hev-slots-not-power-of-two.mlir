// CMD: tessel-opt %s -o %o
// ERROR: !hev.vec slot count must be a power of two between 1 and 16384, got 6
func.func @s(%a: !hev.vec<6>) -> !hev.vec<6> attributes {hev.spec} {
  %s = hev.spec.sum %a : !hev.vec<6>
  func.return %s : !hev.vec<6>
}
