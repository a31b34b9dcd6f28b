// CMD: tessel-opt %s -o %o
// ERROR: Expected shape type.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tg.relu %x : tensor<2x