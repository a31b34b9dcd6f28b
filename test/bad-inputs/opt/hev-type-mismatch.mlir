// CMD: tessel-opt %s -o %o
// ERROR: operand is used with type !hev.ct<8>, but has been previously used or defined with type !h
func.func @f(%a: !hev.ct<8>, %b: !hev.ct<4>) -> !hev.ct<8> {
  %c = hev.add %a, %b : !hev.ct<8>
  func.return %c : !hev.ct<8>
}
