// CMD: tessel-opt %s -o %o
// ERROR: 'tg.add' op result type should be tensor<2x3xf32>, got tensor<3x2xf32>
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %y = tg.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}
