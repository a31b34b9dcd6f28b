// CMD: tessel-opt %s -o %o
// ERROR: 'tg.concat' op axis 5 must be in [0, 2)
func.func @main(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %y = tg.concat %x, %x {axis = 5 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}
