// CMD: tessel-opt %s -o %o
// ERROR: 'tg.reshape' op cannot reshape 6 elements into tensor<5xf32>
func.func @main(%x: tensor<2x3xf32>) -> tensor<5xf32> {
  %y = tg.reshape %x : tensor<2x3xf32> -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}
