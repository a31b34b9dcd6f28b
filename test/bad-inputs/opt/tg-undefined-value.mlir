// CMD: tessel-opt %s -o %o
// ERROR: use of undefined value '%nowhere'
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = tg.relu %nowhere : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
