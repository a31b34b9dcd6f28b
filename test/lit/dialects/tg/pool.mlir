// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// (112 + 1 + 1 - 3) // 2 + 1 = 56
// CHECK-LABEL: func.func @max_pool2d
// CHECK: %{{.*}} = tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
func.func @max_pool2d(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %y = tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  func.return %y : tensor<1x64x56x56xf32>
}

// -----

// The optional second result holds i64 indices of the same shape.
// CHECK-LABEL: func.func @max_pool2d_indices
// CHECK: %{{.*}}, %{{.*}} = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x3x4x4xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>)
// CHECK: %{{.*}}, %{{.*}} = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, storage_order = 1 : i64} : (tensor<1x3x4x4xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>)
func.func @max_pool2d_indices(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xi64> {
  %y, %i = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x3x4x4xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>)
  %z, %j = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, storage_order = 1 : i64} : (tensor<1x3x4x4xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>)
  func.return %j : tensor<1x3x2x2xi64>
}

// -----

// ceil_mode: ceil((5 - 2) / 2) + 1 = 3 where floor mode gives 2.
// CHECK-LABEL: func.func @max_pool2d_ceil
// CHECK: %{{.*}} = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
func.func @max_pool2d_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  func.return %y : tensor<1x1x3x3xf32>
}

// -----

// ceil_mode drops a last window that would start in the end padding:
// ceil((5 + 1 + 1 - 2) / 2) + 1 = 4, but the 4th window starts at 6 >= 5 + 1, so 3.
// CHECK-LABEL: func.func @max_pool2d_ceil_drop
// CHECK: %{{.*}} = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
func.func @max_pool2d_ceil_drop(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  func.return %y : tensor<1x1x3x3xf32>
}

// -----

// Dilation 2 makes the 2x2 window span 3: 7 - 3 + 1 = 5. Integers are fine for max.
// CHECK-LABEL: func.func @max_pool2d_dilated_integer
// CHECK: %{{.*}} = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, ceil_mode = false} : (tensor<1x1x7x7xi8>) -> tensor<1x1x5x5xi8>
func.func @max_pool2d_dilated_integer(%x: tensor<1x1x7x7xi8>) -> tensor<1x1x5x5xi8> {
  %y = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, ceil_mode = false} : (tensor<1x1x7x7xi8>) -> tensor<1x1x5x5xi8>
  func.return %y : tensor<1x1x5x5xi8>
}

// -----

// CHECK-LABEL: func.func @max_pool3d
// CHECK: %{{.*}} = tg.max_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
// CHECK: %{{.*}}, %{{.*}} = tg.max_pool3d %x {kernel = array<i64: 3, 3, 3>, strides = array<i64: 1, 2, 3>, pads = array<i64: 1, 0, 1, 1, 0, 1>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x2x8x8x8xf32>) -> (tensor<1x2x8x3x3xf32>, tensor<1x2x8x3x3xi64>)
func.func @max_pool3d(%x: tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x3x3xi64> {
  %y = tg.max_pool3d %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
  %z, %i = tg.max_pool3d %x {kernel = array<i64: 3, 3, 3>, strides = array<i64: 1, 2, 3>, pads = array<i64: 1, 0, 1, 1, 0, 1>, dilations = array<i64: 1, 1, 1>, ceil_mode = false} : (tensor<1x2x8x8x8xf32>) -> (tensor<1x2x8x3x3xf32>, tensor<1x2x8x3x3xi64>)
  func.return %i : tensor<1x2x8x3x3xi64>
}

// -----

// (7 + 1 + 1 - 3) // 2 + 1 = 4
// CHECK-LABEL: func.func @avg_pool2d
// CHECK: %{{.*}} = tg.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %{{.*}} = tg.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
func.func @avg_pool2d(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32> {
  %y = tg.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %z = tg.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  func.return %z : tensor<1x3x4x4xf32>
}

// -----

// ceil((6 - 3) / 2) + 1 = 3, rectangular kernel on f16.
// CHECK-LABEL: func.func @avg_pool2d_ceil
// CHECK: %{{.*}} = tg.avg_pool2d %x {kernel = array<i64: 3, 1>, strides = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<2x3x6x4xf16>) -> tensor<2x3x3x4xf16>
func.func @avg_pool2d_ceil(%x: tensor<2x3x6x4xf16>) -> tensor<2x3x3x4xf16> {
  %y = tg.avg_pool2d %x {kernel = array<i64: 3, 1>, strides = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<2x3x6x4xf16>) -> tensor<2x3x3x4xf16>
  func.return %y : tensor<2x3x3x4xf16>
}

// -----

// pads = [d0, h0, w0, d1, h1, w1]: D = 4 - 2 + 1 = 3, H = (5 + 2 - 3) // 2 + 1 = 3, W = (6 + 1 - 2) // 2 + 1 = 3.
// CHECK-LABEL: func.func @avg_pool3d
// CHECK: %{{.*}} = tg.avg_pool3d %x {kernel = array<i64: 2, 3, 2>, strides = array<i64: 1, 2, 2>, pads = array<i64: 0, 1, 0, 0, 1, 1>, dilations = array<i64: 1, 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<2x1x4x5x6xf32>) -> tensor<2x1x3x3x3xf32>
func.func @avg_pool3d(%x: tensor<2x1x4x5x6xf32>) -> tensor<2x1x3x3x3xf32> {
  %y = tg.avg_pool3d %x {kernel = array<i64: 2, 3, 2>, strides = array<i64: 1, 2, 2>, pads = array<i64: 0, 1, 0, 0, 1, 1>, dilations = array<i64: 1, 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<2x1x4x5x6xf32>) -> tensor<2x1x3x3x3xf32>
  func.return %y : tensor<2x1x3x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @global_avg_pool2d
// CHECK: %{{.*}} = tg.global_avg_pool2d %x : (tensor<1x512x7x5xf32>) -> tensor<1x512x1x1xf32>
// CHECK: %{{.*}} = tg.global_avg_pool2d %h : (tensor<2x3x1x1xf16>) -> tensor<2x3x1x1xf16>
func.func @global_avg_pool2d(%x: tensor<1x512x7x5xf32>, %h: tensor<2x3x1x1xf16>) -> tensor<1x512x1x1xf32> {
  %y = tg.global_avg_pool2d %x : (tensor<1x512x7x5xf32>) -> tensor<1x512x1x1xf32>
  %z = tg.global_avg_pool2d %h : (tensor<2x3x1x1xf16>) -> tensor<2x3x1x1xf16>
  func.return %y : tensor<1x512x1x1xf32>
}

// -----

// Lp pooling: padding adds zeros to the sum of |x|^p.
// CHECK-LABEL: func.func @lp_pool
// CHECK: %{{.*}} = tg.lp_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>, ceil_mode = false, p = 3 : i64} : (tensor<1x3x28x28xf32>) -> tensor<1x3x30x30xf32>
// CHECK: %{{.*}} = tg.lp_pool3d %y {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false, p = 2 : i64} : (tensor<1x1x3x3x3xf64>) -> tensor<1x1x2x2x2xf64>
func.func @lp_pool(%x: tensor<1x3x28x28xf32>, %y: tensor<1x1x3x3x3xf64>) -> tensor<1x3x30x30xf32> {
  %a = tg.lp_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>, ceil_mode = false, p = 3 : i64} : (tensor<1x3x28x28xf32>) -> tensor<1x3x30x30xf32>
  %b = tg.lp_pool3d %y {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = false, p = 2 : i64} : (tensor<1x1x3x3x3xf64>) -> tensor<1x1x2x2x2xf64>
  func.return %a : tensor<1x3x30x30xf32>
}

// -----

// The blocked layout (NCHW16c): the window slides over dims 2 and 3, the channel lane is
// carried through; a global average keeps the lane too.
// CHECK-LABEL: func.func @blocked
// CHECK: tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, layout = "NCHW16c"} : (tensor<1x2x9x9x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK: tg.avg_pool2d %x {{.*}}layout = "NCHW16c"} : (tensor<1x2x9x9x16xf32>) -> tensor<1x2x5x5x16xf32>
// CHECK: tg.global_avg_pool2d %x {layout = "NCHW16c"} : (tensor<1x2x9x9x16xf32>) -> tensor<1x2x1x1x16xf32>
func.func @blocked(%x: tensor<1x2x9x9x16xf32>) -> (tensor<1x2x4x4x16xf32>, tensor<1x2x5x5x16xf32>, tensor<1x2x1x1x16xf32>) {
  %m = tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, layout = "NCHW16c"} : (tensor<1x2x9x9x16xf32>) -> tensor<1x2x4x4x16xf32>
  %a = tg.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false, layout = "NCHW16c"} : (tensor<1x2x9x9x16xf32>) -> tensor<1x2x5x5x16xf32>
  %g = tg.global_avg_pool2d %x {layout = "NCHW16c"} : (tensor<1x2x9x9x16xf32>) -> tensor<1x2x1x1x16xf32>
  func.return %m, %a, %g : tensor<1x2x4x4x16xf32>, tensor<1x2x5x5x16xf32>, tensor<1x2x1x1x16xf32>
}
