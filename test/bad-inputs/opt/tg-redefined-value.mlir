// CMD: tessel-opt %s -o %o
// ERROR: SSA value %y is already defined
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = tg.relu %x : tensor<2xf32>
  %y = tg.neg %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
