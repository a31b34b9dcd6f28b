// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// grid_sample: one output position per grid position, for 2-D and 3-D inputs.
// CHECK-LABEL: func.func @grid_sample
// CHECK: %{{.*}} = tg.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false} : (tensor<2x3x8x8xf32>, tensor<2x4x5x2xf32>) -> tensor<2x3x4x5xf32>
// CHECK: %{{.*}} = tg.grid_sample %x, %g {mode = "cubic", padding_mode = "reflection", align_corners = true} : (tensor<2x3x8x8xf32>, tensor<2x4x5x2xf32>) -> tensor<2x3x4x5xf32>
// CHECK: %{{.*}} = tg.grid_sample %v, %w {mode = "nearest", padding_mode = "border", align_corners = false} : (tensor<1x2x3x4x5xf16>, tensor<1x2x2x2x3xf16>) -> tensor<1x2x2x2x2xf16>
func.func @grid_sample(%x: tensor<2x3x8x8xf32>, %g: tensor<2x4x5x2xf32>, %v: tensor<1x2x3x4x5xf16>, %w: tensor<1x2x2x2x3xf16>) -> tensor<2x3x4x5xf32> {
  %a = tg.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false} : (tensor<2x3x8x8xf32>, tensor<2x4x5x2xf32>) -> tensor<2x3x4x5xf32>
  %b = tg.grid_sample %x, %g {mode = "cubic", padding_mode = "reflection", align_corners = true} : (tensor<2x3x8x8xf32>, tensor<2x4x5x2xf32>) -> tensor<2x3x4x5xf32>
  %c = tg.grid_sample %v, %w {mode = "nearest", padding_mode = "border", align_corners = false} : (tensor<1x2x3x4x5xf16>, tensor<1x2x2x2x3xf16>) -> tensor<1x2x2x2x2xf16>
  func.return %a : tensor<2x3x4x5xf32>
}

// -----

// col2im: 2x2 blocks of 5 channels, 4x4 of them in a 5x5 image; strided 3-D blocks.
// CHECK-LABEL: func.func @col2im
// CHECK: %{{.*}} = tg.col2im %x {image_shape = array<i64: 5, 5>, block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x20x16xf32> -> tensor<1x5x5x5xf32>
// CHECK: %{{.*}} = tg.col2im %y {image_shape = array<i64: 4, 5, 6>, block_shape = array<i64: 1, 2, 3>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 0, 1, 0, 0, 1, 0>, strides = array<i64: 1, 2, 3>} : tensor<2x6x24xi32> -> tensor<2x1x4x5x6xi32>
func.func @col2im(%x: tensor<1x20x16xf32>, %y: tensor<2x6x24xi32>) -> tensor<1x5x5x5xf32> {
  %a = tg.col2im %x {image_shape = array<i64: 5, 5>, block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x20x16xf32> -> tensor<1x5x5x5xf32>
  %b = tg.col2im %y {image_shape = array<i64: 4, 5, 6>, block_shape = array<i64: 1, 2, 3>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 0, 1, 0, 0, 1, 0>, strides = array<i64: 1, 2, 3>} : tensor<2x6x24xi32> -> tensor<2x1x4x5x6xi32>
  func.return %a : tensor<1x5x5x5xf32>
}
