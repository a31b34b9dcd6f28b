// CMD: tessel-opt %s -o %o
// ERROR: 'tg.max_pool2d' op kernel must be positive, got [0, 0]
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %y = tg.max_pool2d %x {kernel = array<i64: 0, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  func.return %y : tensor<1x1x4x4xf32>
}
