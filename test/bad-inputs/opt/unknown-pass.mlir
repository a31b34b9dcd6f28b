// CMD: tessel-opt %s -o %o -p tg-fuze
// ERROR: unknown pass 'tg-fuze' (did you mean tg-fuse, img-fuse?); `tessel-opt --help` lists the passes
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tg.relu %x : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
