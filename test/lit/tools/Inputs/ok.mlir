func.func @main(%x: tensor<2x3xf32> {tg.name = "x"}) -> (tensor<2x3xf32> {tg.name = "y"}) {
  %y = tg.relu %x : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
