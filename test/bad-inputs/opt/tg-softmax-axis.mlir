// CMD: tessel-opt %s -o %o
// ERROR: 'tg.softmax' op axis -7 must be in [0, 2)
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tg.softmax %x {axis = -7 : i64} : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
