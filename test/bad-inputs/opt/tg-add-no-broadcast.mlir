// CMD: tessel-opt %s -o %o
// ERROR: 'tg.add' op shapes (2, 3) and (4, 5) do not broadcast
func.func @main(%x: tensor<2x3xf32>, %z: tensor<4x5xf32>) -> tensor<2x3xf32> {
  %y = tg.add %x, %z : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
