// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @quantize_int_input(%x: tensor<4xi32>, %s: tensor<f32>, %z: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.quantize' op the input must be a float tensor, got i32
  %r = tg.quantize %x, %s, %z : (tensor<4xi32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return
}

// -----

func.func @quantize_scale_type(%x: tensor<4xf32>, %s: tensor<f16>, %z: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.quantize' op the scale must be f32 like the input, got f16
  %r = tg.quantize %x, %s, %z : (tensor<4xf32>, tensor<f16>, tensor<ui8>) -> tensor<4xui8>
  func.return
}

// -----

func.func @quantize_to_i32(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.quantize' op quantized values must be int8, uint8, int16 or uint16, got i32
  %r = tg.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi32>
  func.return
}

// -----

func.func @quantize_scale_shape(%x: tensor<4x3xf32>, %s: tensor<4xf32>, %z: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.quantize' op the scale of shape (4,) does not broadcast to (4, 3)
  %r = tg.quantize %x, %s, %z : (tensor<4x3xf32>, tensor<4xf32>, tensor<ui8>) -> tensor<4x3xui8>
  func.return
}

// -----

func.func @quantize_result(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.quantize' op result type should be tensor<4xui8>, got tensor<4xi8>
  %r = tg.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xi8>
  func.return
}

// -----

func.func @dequantize_float_input(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<f32>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dequantize' op the input must be a (u)int8, (u)int16 or int32 tensor, got f32
  %r = tg.dequantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @dequantize_zero_point_type(%x: tensor<4xi8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dequantize' op the zero point must be i8 like the input, got ui8
  %r = tg.dequantize %x, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  func.return
}

// -----

func.func @dequantize_integer_scale(%x: tensor<4xi8>, %s: tensor<i32>, %z: tensor<i8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dequantize' op the scale must be a float tensor, got i32
  %r = tg.dequantize %x, %s, %z : (tensor<4xi8>, tensor<i32>, tensor<i8>) -> tensor<4xi32>
  func.return
}

// -----

func.func @dequantize_zero_point_shape(%x: tensor<4xi8>, %s: tensor<f32>, %z: tensor<3xi8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.dequantize' op the zero point of shape (3,) does not broadcast to (4,)
  %r = tg.dequantize %x, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<3xi8>) -> tensor<4xf32>
  func.return
}

// -----

func.func @requantize_accumulator(%a: tensor<4xi16>, %s: tensor<f32>, %z: tensor<i8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.requantize' op the accumulator must be i32, got i16
  %r = tg.requantize %a, %s, %s, %s, %z {precision = f32} : (tensor<4xi16>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  func.return
}

// -----

func.func @requantize_scales(%a: tensor<4xi32>, %s: tensor<f32>, %t: tensor<f16>, %z: tensor<i8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.requantize' op the scales must share one float type, got f32, f16 and f32
  %r = tg.requantize %a, %s, %t, %s, %z {precision = f32} : (tensor<4xi32>, tensor<f32>, tensor<f16>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  func.return
}

// -----

func.func @requantize_precision(%a: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.requantize' op precision must be f32 or f64, got f16
  %r = tg.requantize %a, %s, %s, %s, %z {precision = f16} : (tensor<4xi32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  func.return
}

// -----

func.func @requantize_scale_shape(%a: tensor<4xi32>, %s: tensor<f32>, %t: tensor<2xf32>, %z: tensor<i8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.requantize' op scale_b of shape (2,) does not broadcast to (4,)
  %r = tg.requantize %a, %s, %t, %s, %z {precision = f64} : (tensor<4xi32>, tensor<f32>, tensor<2xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  func.return
}

// -----

func.func @matmul_integer_wide(%a: tensor<2x3xi16>, %b: tensor<3x2xi8>, %z: tensor<i16>, %y: tensor<i8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul_integer' op lhs must be int8 or uint8, got i16
  %r = tg.matmul_integer %a, %b, %z, %y : (tensor<2x3xi16>, tensor<3x2xi8>, tensor<i16>, tensor<i8>) -> tensor<2x2xi32>
  func.return
}

// -----

func.func @matmul_integer_zero_point(%a: tensor<2x3xi8>, %b: tensor<3x2xi8>, %z: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul_integer' op the lhs zero point must be i8, got ui8
  %r = tg.matmul_integer %a, %b, %z, %z : (tensor<2x3xi8>, tensor<3x2xi8>, tensor<ui8>, tensor<ui8>) -> tensor<2x2xi32>
  func.return
}

// -----

func.func @matmul_integer_row_zero_point(%a: tensor<2x3xi8>, %b: tensor<3x2xi8>, %z: tensor<2xi8>, %y: tensor<i8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul_integer' op the lhs zero point of shape (2,) does not broadcast to (2, 3)
  %r = tg.matmul_integer %a, %b, %z, %y : (tensor<2x3xi8>, tensor<3x2xi8>, tensor<2xi8>, tensor<i8>) -> tensor<2x2xi32>
  func.return
}

// -----

func.func @matmul_integer_rank(%a: tensor<i8>, %b: tensor<3x2xi8>, %z: tensor<i8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul_integer' op operands must have rank >= 1
  %r = tg.matmul_integer %a, %b, %z, %z : (tensor<i8>, tensor<3x2xi8>, tensor<i8>, tensor<i8>) -> tensor<2xi32>
  func.return
}

// -----

func.func @matmul_integer_contraction(%a: tensor<2x4xi8>, %b: tensor<3x2xi8>, %z: tensor<i8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.matmul_integer' op contraction sizes differ: lhs (2, 4) has 4, rhs (3, 2) has 3
  %r = tg.matmul_integer %a, %b, %z, %z : (tensor<2x4xi8>, tensor<3x2xi8>, tensor<i8>, tensor<i8>) -> tensor<2x2xi32>
  func.return
}

// -----

func.func @conv_rank(%x: tensor<2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op input must have rank 4, got tensor<2x5x5xui8>
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x3x3x3xi32>
  func.return
}

// -----

func.func @conv_input_type(%x: tensor<1x2x5x5xi32>, %w: tensor<3x2x3x3xui8>, %xz: tensor<i32>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op the input must be int8 or uint8, got i32
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xi32>, tensor<3x2x3x3xui8>, tensor<i32>, tensor<ui8>) -> tensor<1x3x3x3xi32>
  func.return
}

// -----

func.func @conv_weight_zero_point_type(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xi8>, %xz: tensor<ui8>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op the weight zero point must be i8, got ui8
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xi8>, tensor<ui8>, tensor<ui8>) -> tensor<1x3x3x3xi32>
  func.return
}

// -----

func.func @conv_input_zero_point(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<2xui8>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op the input zero point must be one value, got tensor<2xui8>
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<2xui8>, tensor<ui8>) -> tensor<1x3x3x3xi32>
  func.return
}

// -----

func.func @conv_weight_zero_point(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<2xui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op the weight zero point must be one value or one per output channel, got tensor<2xui8>
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<2xui8>) -> tensor<1x3x3x3xi32>
  func.return
}

// -----

func.func @conv_groups(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op groups=2 must divide 2 and 3 channels
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x3x3x3xi32>
  func.return
}

// -----

func.func @conv_weight_channels(%x: tensor<1x4x5x5xui8>, %w: tensor<4x3x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op weight has 3 input channels per group, expected 2
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x5x5xui8>, tensor<4x3x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x4x3x3xi32>
  func.return
}

// -----

func.func @conv_window_props(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op strides and dilations need 2 entries, pads 4
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x3x3x3xi32>
  func.return
}

// -----

func.func @conv_strides(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op strides and dilations must be positive
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x3x3x3xi32>
  func.return
}

// -----

func.func @conv_pads(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op pads must be non-negative, got [-1, 0, 0, 0]
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: -1, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x3x3x3xi32>
  func.return
}

// -----

func.func @conv_window(%x: tensor<1x2x2x2xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer' op the 3x3 window (extent 3) does not fit the input
  %r = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x2x2xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x3x1x1xi32>
  func.return
}

// -----

// The packed weight's groups of four input channels must cover the input's channels.
func.func @packed_channels(%x: tensor<1x6x8x8xi8>, %w: tensor<2x1x3x3x16xi32>, %xz: tensor<i8>, %o: tensor<20xi32>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer_packed' op the packed weight has 1 groups of 4 input channels, the input 6
  %y = tg.conv2d_integer_packed %x, %w, %xz, %o {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x6x8x8xi8>, tensor<2x1x3x3x16xi32>, tensor<i8>, tensor<20xi32>) -> tensor<1x20x8x8xi32>
  func.return
}

// -----

// The offset has one entry per output channel, which the blocks must hold.
func.func @packed_blocks(%x: tensor<1x6x8x8xi8>, %w: tensor<2x2x3x3x16xi32>, %xz: tensor<i8>, %o: tensor<40xi32>) {
  // CHECK: quant-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.conv2d_integer_packed' op 40 output channels do not fill 2 blocks of 16
  %y = tg.conv2d_integer_packed %x, %w, %xz, %o {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x6x8x8xi8>, tensor<2x2x3x3x16xi32>, tensor<i8>, tensor<40xi32>) -> tensor<1x40x8x8xi32>
  func.return
}
