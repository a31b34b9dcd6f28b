// CMD: tessel-opt %s -o %o
// ERROR: Operation nosuch.op is not registered
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = "nosuch.op"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
