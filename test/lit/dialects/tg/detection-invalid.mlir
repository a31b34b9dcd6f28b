// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @roi_boxes(%x: tensor<1x4x8x8xf32>, %r: tensor<5x3xf32>, %b: tensor<5xi64>) {
  // CHECK: detection-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.roi_align' op rois must be (num_rois, 4), got tensor<5x3xf32>
  %y = tg.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 0 : i64, spatial_scale = 1.0 : f32, mode = "avg", half_pixel = true} : (tensor<1x4x8x8xf32>, tensor<5x3xf32>, tensor<5xi64>) -> tensor<5x4x2x2xf32>
  func.return
}

// -----

func.func @roi_batch_type(%x: tensor<1x4x8x8xf32>, %r: tensor<5x4xf32>, %b: tensor<5xi32>) {
  // CHECK: detection-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.roi_align' op batch_indices must be i64 of shape (5,), got tensor<5xi32>
  %y = tg.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 0 : i64, spatial_scale = 1.0 : f32, mode = "avg", half_pixel = true} : (tensor<1x4x8x8xf32>, tensor<5x4xf32>, tensor<5xi32>) -> tensor<5x4x2x2xf32>
  func.return
}

// -----

func.func @roi_mode(%x: tensor<1x4x8x8xf32>, %r: tensor<5x4xf32>, %b: tensor<5xi64>) {
  // CHECK: detection-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.roi_align' op property 'mode' must be one of 'avg', 'max', got "median"
  %y = tg.roi_align %x, %r, %b {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 0 : i64, spatial_scale = 1.0 : f32, mode = "median", half_pixel = true} : (tensor<1x4x8x8xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x4x2x2xf32>
  func.return
}
