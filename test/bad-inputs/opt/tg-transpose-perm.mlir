// CMD: tessel-opt %s -o %o
// ERROR: 'tg.transpose' op perm [1, 1] is not a permutation of 0..1
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %y = tg.transpose %x {perm = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}
