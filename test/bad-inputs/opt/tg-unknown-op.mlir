// CMD: tessel-opt %s -o %o
// ERROR: Operation tg.frobnicate is not registered
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = tg.frobnicate %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
