// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @weight_dynamic() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.weight' op result #0 must have a static shape, got tensor<?xf32>
  %w = tg.weight @w : tensor<?xf32>
  func.return
}

// -----

func.func @weight_unsupported() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.weight' op result #0 has unsupported element type i4
  %w = tg.weight @w : tensor<2xi4>
  func.return
}

// -----

func.func @weight_missing_sym() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.weight' op property 'sym' expected in operation 'tg.weight'
  %w = "tg.weight"() : () -> tensor<3xf32>
  func.return
}

// -----

// The result type is the type of the value (checked in the generic form).
func.func @constant_result_type() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.constant' op result type must be the value's type tensor<2xi32>
  %c = "tg.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi64>
  func.return
}

// -----

func.func @constant_result_shape() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.constant' op result type must be the value's type tensor<2xi32>
  %c = "tg.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<3xi32>
  func.return
}

// -----

func.func @constant_unsupported() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.constant' op result #0 has unsupported element type i4
  %c = tg.constant dense<[1, 2]> : tensor<2xi4>
  func.return
}

// -----

func.func @constant_signed_type() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.constant' op result #0 has unsupported element type si32
  %c = tg.constant dense<[1, 2]> : tensor<2xsi32>
  func.return
}

// -----

func.func @reshape_elements(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reshape' op cannot reshape 6 elements into tensor<5xf32>
  %y = tg.reshape %x : tensor<2x3xf32> -> tensor<5xf32>
  func.return
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.reshape' op element type must stay f32
  %y = tg.reshape %x : tensor<2x3xf32> -> tensor<6xf16>
  func.return
}

// -----

func.func @flatten_axis_range(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.flatten' op axis 3 must be in [0, 2]
  %y = tg.flatten %x {axis = 3 : i64} : tensor<2x3xf32> -> tensor<6x1xf32>
  func.return
}

// -----

func.func @flatten_negative_axis(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.flatten' op axis -1 must be in [0, 2]
  %y = tg.flatten %x {axis = -1 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  func.return
}

// -----

// The result is always 2-D.
func.func @flatten_result(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.flatten' op result type should be tensor<2x3xf32>, got tensor<6xf32>
  %y = tg.flatten %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<6xf32>
  func.return
}

// -----

func.func @flatten_missing_axis(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.flatten' op property 'axis' expected in operation 'tg.flatten'
  %y = tg.flatten %x : tensor<2x3xf32> -> tensor<6x1xf32>
  func.return
}

// -----

func.func @transpose_repeated(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.transpose' op perm [0, 0] is not a permutation of 0..1
  %y = tg.transpose %x {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  func.return
}

// -----

func.func @transpose_length(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.transpose' op perm [1, 0, 2] is not a permutation of 0..1
  %y = tg.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3xf32> -> tensor<3x2xf32>
  func.return
}

// -----

func.func @transpose_negative(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.transpose' op perm [-1, 0] is not a permutation of 0..1
  %y = tg.transpose %x {perm = array<i64: -1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  func.return
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.transpose' op result type should be tensor<3x2xf32>, got tensor<2x3xf32>
  %y = tg.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  func.return
}

// -----

func.func @concat_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.concat' op input #1 tensor<3x3xf32> differs from input #0 outside axis 1
  %y = tg.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.concat' op input #1 tensor<2x3x1xf32> differs from input #0 outside axis 0
  %y = tg.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @concat_element_types(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.concat' op inputs must have the same element type, got f32 and f16
  %y = tg.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @concat_axis_range(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.concat' op axis 2 must be in [0, 2)
  %y = tg.concat %a, %b {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @concat_negative_axis(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.concat' op axis -1 must be in [0, 2)
  %y = tg.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

// 0-d tensors have no axis to concatenate along.
func.func @concat_scalars(%a: tensor<f32>, %b: tensor<f32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.concat' op axis 0 must be in [0, 0)
  %y = tg.concat %a, %b {axis = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @concat_result(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.concat' op result type should be tensor<4x3xf32>, got tensor<2x6xf32>
  %y = tg.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @concat_no_inputs() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.concat' op concat needs at least one input
  %y = tg.concat {axis = 0 : i64} : () -> tensor<2xf32>
  func.return
}

// -----

func.func @slice_out_of_range(%x: tensor<4x6xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.slice' op dim 1: indices 4..6 leave [0, 6)
  %y = tg.slice %x {starts = array<i64: 0, 4>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<4x3xf32>
  func.return
}

// -----

func.func @slice_extent_too_big(%x: tensor<4x6xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.slice' op dim 0: indices 0..4 leave [0, 4)
  %y = tg.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<5x6xf32>
  func.return
}

// -----

// Starts are canonical: non-negative.
func.func @slice_negative_start(%x: tensor<4x6xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.slice' op dim 0: indices -1..-1 leave [0, 4)
  %y = tg.slice %x {starts = array<i64: -1, 0>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<1x6xf32>
  func.return
}

// -----

func.func @slice_negative_step_past_start(%x: tensor<4x6xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.slice' op dim 0: indices 3..-1 leave [0, 4)
  %y = tg.slice %x {starts = array<i64: 3, 0>, steps = array<i64: -2, 1>} : tensor<4x6xf32> -> tensor<3x6xf32>
  func.return
}

// -----

func.func @slice_zero_step(%x: tensor<4x6xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.slice' op step of dim 1 is zero
  %y = tg.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 0>} : tensor<4x6xf32> -> tensor<4x3xf32>
  func.return
}

// -----

func.func @slice_entries(%x: tensor<4x6xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.slice' op starts and steps need one entry per dim of tensor<4x6xf32>
  %y = tg.slice %x {starts = array<i64: 0>, steps = array<i64: 1>} : tensor<4x6xf32> -> tensor<4x6xf32>
  func.return
}

// -----

func.func @slice_result_rank(%x: tensor<4x6xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.slice' op starts and steps need one entry per dim of tensor<4x6xf32>
  %y = tg.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<4xf32>
  func.return
}

// -----

func.func @slice_element_type(%x: tensor<4x6xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.slice' op element type must stay f32
  %y = tg.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<4x6xf16>
  func.return
}

// -----

// reflect mirrors without the edge, so a pad must be smaller than its dim.
func.func @pad_reflect_too_large(%x: tensor<3x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op reflect padding of 4 needs dim 1 larger than 4, got 4
  %y = tg.pad %x {pads = array<i64: 0, 4, 0, 0>, mode = "reflect"} : tensor<3x4xf32> -> tensor<3x8xf32>
  func.return
}

// -----

func.func @pad_reflect_size_one(%x: tensor<1x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op reflect padding of 1 needs dim 0 larger than 1, got 1
  %y = tg.pad %x {pads = array<i64: 0, 0, 1, 0>, mode = "reflect"} : tensor<1x4xf32> -> tensor<2x4xf32>
  func.return
}

// -----

func.func @pad_entries(%x: tensor<3x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op pads must have 4 entries, got 2
  %y = tg.pad %x {pads = array<i64: 0, 0>, mode = "constant"} : tensor<3x4xf32> -> tensor<3x4xf32>
  func.return
}

// -----

func.func @pad_mode(%x: tensor<3x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op property 'mode' must be one of 'constant', 'reflect', 'edge', 'wrap', got "symmetric"
  %y = tg.pad %x {pads = array<i64: 0, 0, 0, 0>, mode = "symmetric"} : tensor<3x4xf32> -> tensor<3x4xf32>
  func.return
}

// -----

func.func @pad_missing_mode(%x: tensor<3x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op property 'mode' expected in operation 'tg.pad'
  %y = tg.pad %x {pads = array<i64: 1, 0, 0, 0>} : tensor<3x4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

func.func @pad_value_with_edge(%x: tensor<3x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op only mode "constant" takes a value
  %y = tg.pad %x {pads = array<i64: 1, 0, 0, 0>, mode = "edge", value = 0.0 : f32} : tensor<3x4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

// The fill value is typed like the elements.
func.func @pad_value_type(%x: tensor<3x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op property 'value' must be a f32 scalar, got 0 : i32
  %y = tg.pad %x {pads = array<i64: 1, 0, 0, 0>, mode = "constant", value = 0 : i32} : tensor<3x4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

func.func @pad_crop_below_zero(%x: tensor<3x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op pads [-2, 0, -2, 0] crop tensor<3x4xf32> below zero
  %y = tg.pad %x {pads = array<i64: -2, 0, -2, 0>, mode = "constant"} : tensor<3x4xf32> -> tensor<0x4xf32>
  func.return
}

// -----

func.func @pad_edge_empty(%x: tensor<0x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op edge padding needs a non-empty dim 0
  %y = tg.pad %x {pads = array<i64: 1, 0, 0, 0>, mode = "edge"} : tensor<0x4xf32> -> tensor<1x4xf32>
  func.return
}

// -----

func.func @pad_wrap_empty(%x: tensor<4x0xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op wrap padding needs a non-empty dim 1
  %y = tg.pad %x {pads = array<i64: 0, 0, 0, 2>, mode = "wrap"} : tensor<4x0xf32> -> tensor<4x2xf32>
  func.return
}

// -----

func.func @pad_result(%x: tensor<3x4xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.pad' op result type should be tensor<4x4xf32>, got tensor<3x4xf32>
  %y = tg.pad %x {pads = array<i64: 1, 0, 0, 0>, mode = "constant"} : tensor<3x4xf32> -> tensor<3x4xf32>
  func.return
}

// -----

func.func @weight_nested_symbol() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.weight' op weight names are flat symbols, got @a::@b
  %w = tg.weight @a::@b : tensor<2xf32>
  func.return
}

// -----

func.func @constant_out_of_range() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: Integer value 300 is out of range for type ui8
  %c = tg.constant dense<300> : tensor<2xui8>
  func.return
}

// -----

func.func @depth_to_space_channels(%x: tensor<1x6x3x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.depth_to_space' op 6 channels do not split into 2x2 blocks
  %y = tg.depth_to_space %x {blocksize = 2 : i64, mode = "DCR"} : tensor<1x6x3x3xf32> -> tensor<1x1x6x6xf32>
  func.return
}

// -----

func.func @depth_to_space_mode(%x: tensor<1x8x3x3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.depth_to_space' op property 'mode' must be one of 'DCR', 'CRD', got "RDC"
  %y = tg.depth_to_space %x {blocksize = 2 : i64, mode = "RDC"} : tensor<1x8x3x3xf32> -> tensor<1x2x6x6xf32>
  func.return
}

// -----

func.func @depth_to_space_blocks(%x: tensor<1x2x3x3x16xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.depth_to_space' op 8 output channels do not fill blocks of 16
  %y = tg.depth_to_space %x {blocksize = 2 : i64, mode = "DCR"} : tensor<1x2x3x3x16xf32> -> tensor<1x1x6x6x16xf32>
  func.return
}

// -----

func.func @expand_not_broadcast(%x: tensor<3x2xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.expand' op tensor<3x2xf32> does not broadcast to tensor<3x4xf32>
  %y = tg.expand %x : tensor<3x2xf32> -> tensor<3x4xf32>
  func.return
}

// -----

func.func @expand_element(%x: tensor<3xf32>) {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.expand' op element type must stay f32
  %y = tg.expand %x : tensor<3xf32> -> tensor<2x3xf16>
  func.return
}

// -----

func.func @fill_value_type() {
  // CHECK: tensor-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.fill' op property 'value' must be a f32 scalar, got 1 : i64
  %y = tg.fill {value = 1 : i64} : tensor<2xf32>
  func.return
}
