// CMD: tessel-opt %s -o %o -p 'tg-fuse{'
// ERROR: bad pass pipeline 'tg-fuse{': Expected argument name here
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tg.relu %x : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
