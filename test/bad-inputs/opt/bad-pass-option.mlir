// CMD: tessel-opt %s -o %o -p 'he-synthesize{budget=fast}'
// ERROR: bad pass pipeline 'he-synthesize{budget=fast}': Incompatible types: given ('fast',), expec
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tg.relu %x : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
