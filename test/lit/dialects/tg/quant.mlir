// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// Scales and zero points are operands that broadcast against the data: per tensor
// (rank 0) and per axis (a vector laid on its axis).
// CHECK-LABEL: func.func @linear
// CHECK: %q = tg.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
// CHECK: %d = tg.dequantize %q, %c, %z : (tensor<2x3xui8>, tensor<3xf32>, tensor<ui8>) -> tensor<2x3xf32>
// CHECK: %h = tg.dequantize %w, %p, %y : (tensor<4x2xi16>, tensor<4x1xf16>, tensor<i16>) -> tensor<4x2xf16>
func.func @linear(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<ui8>, %c: tensor<3xf32>,
                  %w: tensor<4x2xi16>, %p: tensor<4x1xf16>, %y: tensor<i16>) -> tensor<2x3xf32> {
  %q = tg.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  %d = tg.dequantize %q, %c, %z : (tensor<2x3xui8>, tensor<3xf32>, tensor<ui8>) -> tensor<2x3xf32>
  %h = tg.dequantize %w, %p, %y : (tensor<4x2xi16>, tensor<4x1xf16>, tensor<i16>) -> tensor<4x2xf16>
  func.return %d : tensor<2x3xf32>
}

// -----

// The integer contractions give exact int32; requantize brings them back to 8 bits.
// CHECK-LABEL: func.func @integer
// CHECK: %m = tg.matmul_integer %a, %b, %az, %bz : (tensor<4x3xui8>, tensor<3x2xi8>, tensor<4x1xui8>, tensor<2xi8>) -> tensor<4x2xi32>
// CHECK: %r = tg.requantize %m, %s, %t, %s, %zo {precision = f32} : (tensor<4x2xi32>, tensor<f32>, tensor<2xf32>, tensor<f32>, tensor<i8>) -> tensor<4x2xi8>
// CHECK: %c = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<3xui8>) -> tensor<1x3x5x5xi32>
func.func @integer(%a: tensor<4x3xui8>, %b: tensor<3x2xi8>, %az: tensor<4x1xui8>, %bz: tensor<2xi8>,
                   %s: tensor<f32>, %t: tensor<2xf32>, %zo: tensor<i8>,
                   %x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<3xui8>) -> tensor<4x2xi8> {
  %m = tg.matmul_integer %a, %b, %az, %bz : (tensor<4x3xui8>, tensor<3x2xi8>, tensor<4x1xui8>, tensor<2xi8>) -> tensor<4x2xi32>
  %r = tg.requantize %m, %s, %t, %s, %zo {precision = f32} : (tensor<4x2xi32>, tensor<f32>, tensor<2xf32>, tensor<f32>, tensor<i8>) -> tensor<4x2xi8>
  %c = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<3xui8>) -> tensor<1x3x5x5xi32>
  func.return %r : tensor<4x2xi8>
}

// -----

// The int8 convolution on packed weights (tg-pack-integer-conv): four input channels per
// i32 word, 16 output channels per block, a per-channel i32 offset.
// CHECK-LABEL: func.func @packed
// CHECK: %y = tg.conv2d_integer_packed %x, %w, %xz, %o {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x6x8x8xi8>, tensor<2x2x3x3x16xi32>, tensor<i8>, tensor<20xi32>) -> tensor<1x20x4x4xi32>
func.func @packed(%x: tensor<1x6x8x8xi8>, %w: tensor<2x2x3x3x16xi32>, %xz: tensor<i8>, %o: tensor<20xi32>) -> tensor<1x20x4x4xi32> {
  %y = tg.conv2d_integer_packed %x, %w, %xz, %o {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x6x8x8xi8>, tensor<2x2x3x3x16xi32>, tensor<i8>, tensor<20xi32>) -> tensor<1x20x4x4xi32>
  func.return %y : tensor<1x20x4x4xi32>
}
