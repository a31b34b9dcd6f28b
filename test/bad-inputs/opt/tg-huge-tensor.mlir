// CMD: tessel-opt %s -o %o
// ERROR: 'func.func' op value %x of type tensor<1000000x1000000xf32> has 1000000000000 elements (10
func.func @main(%x: tensor<1000000x1000000xf32>) -> tensor<1000000x1000000xf32> {
  %y = tg.relu %x : tensor<1000000x1000000xf32>
  func.return %y : tensor<1000000x1000000xf32>
}
