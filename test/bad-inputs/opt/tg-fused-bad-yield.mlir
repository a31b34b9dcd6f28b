// CMD: tessel-opt %s -o %o
// ERROR: 'tg.fused' op must end in tg.yield of tensor<2x2xf32> (its results), got tg.yield of tenso
func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = tg.fused "relu"(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
  ^bb0(%x: tensor<2x2xf32>):
    %r = tg.relu %x : tensor<2x2xf32>
    %f = tg.flatten %r {axis = 0 : i64} : tensor<2x2xf32> -> tensor<1x4xf32>
    tg.yield %f : tensor<1x4xf32>
  }
  func.return %y : tensor<2x2xf32>
}
