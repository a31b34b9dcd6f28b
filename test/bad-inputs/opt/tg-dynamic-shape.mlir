// CMD: tessel-opt %s -o %o
// ERROR: 'tg.relu' op operand #0 must have a static shape, got tensor<?x3xf32>
func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = tg.relu %x : tensor<?x3xf32>
  func.return %y : tensor<?x3xf32>
}
