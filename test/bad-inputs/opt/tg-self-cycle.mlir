// CMD: tessel-opt %s -o %o
// ERROR: 'tg.add' op uses %a before it is defined (the graph has a cycle)
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = tg.add %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %a : tensor<2xf32>
}
