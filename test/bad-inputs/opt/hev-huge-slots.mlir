// CMD: tessel-opt %s -o %o -p 'he-synthesize{progress=false}'
// ERROR: !hev.vec slot count must be a power of two between 1 and 16384, got 1099511627776
func.func @s(%a: !hev.vec<1099511627776>) -> !hev.vec<1099511627776> attributes {hev.spec} {
  %s = hev.spec.sum %a : !hev.vec<1099511627776>
  func.return %s : !hev.vec<1099511627776>
}
