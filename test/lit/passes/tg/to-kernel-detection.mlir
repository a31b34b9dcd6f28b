// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file --verify-diagnostics | filecheck %s

// RoiAlign is one reduction over the bin's samples (sampling_ratio x sampling_ratio); each
// sample reads its roi's corners, computes the bilinear taps in f32 and loads the four
// pixels at clamped, data-dependent indices; average mode divides by the sample count in
// the then region.
// CHECK-LABEL: func.func @k0_roi_align(
// CHECK:         kernel.compute "roi_align" %{{.*}}(o0 = 3, o1 = 2, o2 = 2, o3 = 2) reduce(sy = 2, sx = 2) combine "add" init 0.000000e+00 : f32 : memref<3x2x2x2xf32> {
// CHECK:           affine.load %{{.*}}[%o0, 0] : memref<3x4xf32>
// CHECK:           arith.minsi
// CHECK-COUNT-4:   memref.load %{{.*}} : memref<1x2x8x8xf32>
// CHECK:         } then {
// CHECK:           %[[N:[0-9]+]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      arith.divf %acc, %[[N]] : f32
func.func @roi(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x2x2x2xf32> {
  %y = tg.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64, spatial_scale = 5.000000e-01 : f32, mode = "avg", half_pixel = true} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  func.return %y : tensor<3x2x2x2xf32>
}

// -----

// An adaptive sampling ratio (0) makes the sample count depend on each roi's size: one
// line, and the reference target runs it.
func.func @adaptive(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x2x2x2xf32> {
  // CHECK: to-kernel-detection.mlir:[[# @LINE + 1]]:3: error: cannot lower 'roi_align' to a kernel: sampling_ratio 0 samples a number of points per bin that depends on the regions' sizes (the reference target runs it; compiled kernels need sampling_ratio > 0)
  %y = tg.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 0 : i64, spatial_scale = 5.000000e-01 : f32, mode = "avg", half_pixel = true} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  func.return %y : tensor<3x2x2x2xf32>
}
