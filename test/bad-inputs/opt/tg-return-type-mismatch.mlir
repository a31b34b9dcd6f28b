// CMD: tessel-opt %s -o %o
// ERROR: 'func.return' op Expected arguments to have the same types as the function output types: e
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %y = tg.relu %x : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
