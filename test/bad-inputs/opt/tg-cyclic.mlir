// CMD: tessel-opt %s -o %o -p tg-fuse
// ERROR: 'tg.add' op uses %b before it is defined (the graph has a cycle)
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = tg.add %x, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = tg.relu %a : tensor<2xf32>
  func.return %b : tensor<2xf32>
}
