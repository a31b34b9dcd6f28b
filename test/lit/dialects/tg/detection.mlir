// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// RoiAlign: each region of interest (x1, y1, x2, y2 in input coordinates times
// spatial_scale) of its batch image, pooled to output_height x output_width bins of
// bilinear samples (sampling_ratio per bin, 0: adaptive), averaged or maxed.
// CHECK-LABEL: func.func @roi
// CHECK: %y = tg.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 3 : i64, sampling_ratio = 0 : i64, spatial_scale = 5.000000e-01 : f32, mode = "max", half_pixel = true} : (tensor<2x4x8x8xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x4x2x3xf32>
func.func @roi(%x: tensor<2x4x8x8xf32>, %r: tensor<5x4xf32>, %b: tensor<5xi64>) -> tensor<5x4x2x3xf32> {
  %y = tg.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 3 : i64, sampling_ratio = 0 : i64, spatial_scale = 5.000000e-01 : f32, mode = "max", half_pixel = true} : (tensor<2x4x8x8xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x4x2x3xf32>
  func.return %y : tensor<5x4x2x3xf32>
}
