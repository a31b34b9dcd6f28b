// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @weights
// CHECK: %{{.*}} = tg.weight @conv1.weight : tensor<64x3x7x7xf32>
// CHECK: %{{.*}} = tg.weight @"onnx::Conv_1" : tensor<8xf32>
// CHECK: %{{.*}} = tg.weight @"layer 2/bias" : tensor<f16>
// CHECK: %{{.*}} = tg.weight @fc_w : tensor<1xi64>
func.func @weights() -> tensor<64x3x7x7xf32> {
  %w = tg.weight @conv1.weight : tensor<64x3x7x7xf32>
  %c = tg.weight @"onnx::Conv_1" : tensor<8xf32>
  %b = tg.weight @"layer 2/bias" : tensor<f16>
  %f = tg.weight @fc_w : tensor<1xi64>
  func.return %w : tensor<64x3x7x7xf32>
}

// -----

// CHECK-LABEL: func.func @constants_float
// CHECK: %{{.*}} = tg.constant dense<[1.000000e+00, -2.500000e+00]> : tensor<2xf32>
// CHECK: %{{.*}} = tg.constant dense<[0x7fc00000, 0x7f800000, 0xff800000, -0.000000e+00]> : tensor<4xf32>
// CHECK: %{{.*}} = tg.constant dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 0x7e00]]> : tensor<2x2xf16>
// CHECK: %{{.*}} = tg.constant dense<0x7fc00000> : tensor<f32>
// CHECK: %{{.*}} = tg.constant dense<5.000000e-01> : tensor<1x1xf64>
// CHECK: %{{.*}} = tg.constant dense<[0x7fc0, 1.500000e+00]> : tensor<2xbf16>
func.func @constants_float() -> tensor<2xf32> {
  %a = tg.constant dense<[1.0, -2.5]> : tensor<2xf32>
  %nan = tg.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000, -0.0]> : tensor<4xf32>
  %h = tg.constant dense<[[1.0, 2.0], [3.0, 0x7E00]]> : tensor<2x2xf16>
  %s = tg.constant dense<0x7FC00000> : tensor<f32>
  %d = tg.constant dense<0.5> : tensor<1x1xf64>
  %b = tg.constant dense<[0x7FC0, 1.5]> : tensor<2xbf16>
  func.return %a : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @constants_integer
// CHECK: %{{.*}} = tg.constant dense<[1, -2, 9223372036854775807]> : tensor<3xi64>
// CHECK: %{{.*}} = tg.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK: %{{.*}} = tg.constant dense<false> : tensor<i1>
// CHECK: %{{.*}} = tg.constant dense<[0, 255]> : tensor<2xui8>
// CHECK: %{{.*}} = tg.constant dense<7> : tensor<1xui8>
// CHECK: %{{.*}} = tg.constant dense<-128> : tensor<i8>
func.func @constants_integer() -> tensor<3xi64> {
  %a = tg.constant dense<[1, -2, 9223372036854775807]> : tensor<3xi64>
  %b = tg.constant dense<[true, false, true]> : tensor<3xi1>
  %c = tg.constant dense<false> : tensor<i1>
  %u = tg.constant dense<[0, 255]> : tensor<2xui8>
  %o = tg.constant dense<7> : tensor<1xui8>
  %s = tg.constant dense<-128> : tensor<i8>
  func.return %a : tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK: %{{.*}} = tg.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: %{{.*}} = tg.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK: %{{.*}} = tg.reshape %s : tensor<i64> -> tensor<1x1xi64>
// CHECK: %{{.*}} = tg.reshape %e : tensor<0x3xf32> -> tensor<3x0x5xf32>
func.func @reshape(%x: tensor<2x3x4xf32>, %s: tensor<i64>, %e: tensor<0x3xf32>) -> tensor<6x4xf32> {
  %a = tg.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = tg.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %c = tg.reshape %s : tensor<i64> -> tensor<1x1xi64>
  %d = tg.reshape %e : tensor<0x3xf32> -> tensor<3x0x5xf32>
  func.return %a : tensor<6x4xf32>
}

// -----

// (prod(shape[:axis]), prod(shape[axis:])), axis in [0, rank].
// CHECK-LABEL: func.func @flatten
// CHECK: %{{.*}} = tg.flatten %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
// CHECK: %{{.*}} = tg.flatten %x {axis = 0 : i64} : tensor<2x3x4xf32> -> tensor<1x24xf32>
// CHECK: %{{.*}} = tg.flatten %x {axis = 3 : i64} : tensor<2x3x4xf32> -> tensor<24x1xf32>
// CHECK: %{{.*}} = tg.flatten %s {axis = 0 : i64} : tensor<i1> -> tensor<1x1xi1>
func.func @flatten(%x: tensor<2x3x4xf32>, %s: tensor<i1>) -> tensor<2x12xf32> {
  %a = tg.flatten %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %b = tg.flatten %x {axis = 0 : i64} : tensor<2x3x4xf32> -> tensor<1x24xf32>
  %c = tg.flatten %x {axis = 3 : i64} : tensor<2x3x4xf32> -> tensor<24x1xf32>
  %d = tg.flatten %s {axis = 0 : i64} : tensor<i1> -> tensor<1x1xi1>
  func.return %a : tensor<2x12xf32>
}

// -----

// result.shape[i] = input.shape[perm[i]]
// CHECK-LABEL: func.func @transpose
// CHECK: %{{.*}} = tg.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x4x5xf32> -> tensor<1x4x5x3xf32>
// CHECK: %{{.*}} = tg.transpose %x {perm = array<i64: 3, 2, 1, 0>} : tensor<1x3x4x5xf32> -> tensor<5x4x3x1xf32>
// CHECK: %{{.*}} = tg.transpose %v {perm = array<i64: 0>} : tensor<7xi8> -> tensor<7xi8>
// CHECK: %{{.*}} = tg.transpose %s {perm = array<i64>} : tensor<f32> -> tensor<f32>
func.func @transpose(%x: tensor<1x3x4x5xf32>, %v: tensor<7xi8>, %s: tensor<f32>) -> tensor<1x4x5x3xf32> {
  %a = tg.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x4x5xf32> -> tensor<1x4x5x3xf32>
  %b = tg.transpose %x {perm = array<i64: 3, 2, 1, 0>} : tensor<1x3x4x5xf32> -> tensor<5x4x3x1xf32>
  %c = tg.transpose %v {perm = array<i64: 0>} : tensor<7xi8> -> tensor<7xi8>
  %d = tg.transpose %s {perm = array<i64>} : tensor<f32> -> tensor<f32>
  func.return %a : tensor<1x4x5x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK: %{{.*}} = tg.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
// CHECK: %{{.*}} = tg.concat %x, %x, %x {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
// CHECK: %{{.*}} = tg.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = tg.concat %b, %b {axis = 0 : i64} : (tensor<1xi1>, tensor<1xi1>) -> tensor<2xi1>
// CHECK: %{{.*}} = tg.concat %x, %e {axis = 0 : i64} : (tensor<2x3xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
func.func @concat(%x: tensor<2x3xf32>, %y: tensor<2x5xf32>, %b: tensor<1xi1>, %e: tensor<0x3xf32>) -> tensor<2x8xf32> {
  %a = tg.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %t = tg.concat %x, %x, %x {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
  %o = tg.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = tg.concat %b, %b {axis = 0 : i64} : (tensor<1xi1>, tensor<1xi1>) -> tensor<2xi1>
  %z = tg.concat %x, %e {axis = 0 : i64} : (tensor<2x3xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  func.return %a : tensor<2x8xf32>
}

// -----

// A start and a step per dim; the result type gives the extents.
// CHECK-LABEL: func.func @slice
// CHECK: %{{.*}} = tg.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<4x6xf32> -> tensor<4x3xf32>
// CHECK: %{{.*}} = tg.slice %x {starts = array<i64: 3, 5>, steps = array<i64: -1, -1>} : tensor<4x6xf32> -> tensor<4x6xf32>
// CHECK: %{{.*}} = tg.slice %x {starts = array<i64: 3, 5>, steps = array<i64: -2, -5>} : tensor<4x6xf32> -> tensor<2x2xf32>
// CHECK: %{{.*}} = tg.slice %x {starts = array<i64: 2, 0>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<1x6xf32>
// CHECK: %{{.*}} = tg.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<0x6xf32>
// CHECK: %{{.*}} = tg.slice %s {starts = array<i64>, steps = array<i64>} : tensor<i32> -> tensor<i32>
func.func @slice(%x: tensor<4x6xf32>, %s: tensor<i32>) -> tensor<4x3xf32> {
  %a = tg.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<4x6xf32> -> tensor<4x3xf32>
  %r = tg.slice %x {starts = array<i64: 3, 5>, steps = array<i64: -1, -1>} : tensor<4x6xf32> -> tensor<4x6xf32>
  %n = tg.slice %x {starts = array<i64: 3, 5>, steps = array<i64: -2, -5>} : tensor<4x6xf32> -> tensor<2x2xf32>
  %o = tg.slice %x {starts = array<i64: 2, 0>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<1x6xf32>
  %e = tg.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<0x6xf32>
  %z = tg.slice %s {starts = array<i64>, steps = array<i64>} : tensor<i32> -> tensor<i32>
  func.return %a : tensor<4x3xf32>
}

// -----

// pads = [begin..., end...]
// CHECK-LABEL: func.func @pad_constant
// CHECK: %{{.*}} = tg.pad %x {pads = array<i64: 1, 0, 0, 2>, mode = "constant"} : tensor<2x3xf32> -> tensor<3x5xf32>
// CHECK: %{{.*}} = tg.pad %x {pads = array<i64: 1, 1, 1, 1>, mode = "constant", value = -1.000000e+00 : f32} : tensor<2x3xf32> -> tensor<4x5xf32>
// CHECK: %{{.*}} = tg.pad %i {pads = array<i64: 2, 0>, mode = "constant", value = 7 : i32} : tensor<3xi32> -> tensor<5xi32>
// CHECK: %{{.*}} = tg.pad %s {pads = array<i64>, mode = "constant"} : tensor<f32> -> tensor<f32>
// CHECK: %{{.*}} = tg.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "constant", value = 0xff800000 : f32} : tensor<2x3xf32> -> tensor<2x5xf32>
// CHECK: %{{.*}} = tg.pad %p {pads = array<i64: 1, 1>, mode = "constant", value = true} : tensor<2xi1> -> tensor<4xi1>
func.func @pad_constant(%x: tensor<2x3xf32>, %i: tensor<3xi32>, %s: tensor<f32>, %p: tensor<2xi1>) -> tensor<3x5xf32> {
  %a = tg.pad %x {pads = array<i64: 1, 0, 0, 2>, mode = "constant"} : tensor<2x3xf32> -> tensor<3x5xf32>
  %b = tg.pad %x {pads = array<i64: 1, 1, 1, 1>, mode = "constant", value = -1.0 : f32} : tensor<2x3xf32> -> tensor<4x5xf32>
  %c = tg.pad %i {pads = array<i64: 2, 0>, mode = "constant", value = 7 : i32} : tensor<3xi32> -> tensor<5xi32>
  %d = tg.pad %s {pads = array<i64>, mode = "constant"} : tensor<f32> -> tensor<f32>
  %e = tg.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "constant", value = 0xFF800000 : f32} : tensor<2x3xf32> -> tensor<2x5xf32>
  %f = tg.pad %p {pads = array<i64: 1, 1>, mode = "constant", value = true} : tensor<2xi1> -> tensor<4xi1>
  func.return %a : tensor<3x5xf32>
}

// -----

// reflect needs each pad smaller than its dim; edge and wrap only a non-empty dim.
// CHECK-LABEL: func.func @pad_modes
// CHECK: %{{.*}} = tg.pad %x {pads = array<i64: 0, 3, 0, 2>, mode = "reflect"} : tensor<3x4xf32> -> tensor<3x9xf32>
// CHECK: %{{.*}} = tg.pad %x {pads = array<i64: 5, 0, 5, 0>, mode = "edge"} : tensor<3x4xf32> -> tensor<13x4xf32>
// CHECK: %{{.*}} = tg.pad %x {pads = array<i64: 4, 1, 0, 9>, mode = "wrap"} : tensor<3x4xf32> -> tensor<7x14xf32>
func.func @pad_modes(%x: tensor<3x4xf32>) -> tensor<3x9xf32> {
  %r = tg.pad %x {pads = array<i64: 0, 3, 0, 2>, mode = "reflect"} : tensor<3x4xf32> -> tensor<3x9xf32>
  %e = tg.pad %x {pads = array<i64: 5, 0, 5, 0>, mode = "edge"} : tensor<3x4xf32> -> tensor<13x4xf32>
  %w = tg.pad %x {pads = array<i64: 4, 1, 0, 9>, mode = "wrap"} : tensor<3x4xf32> -> tensor<7x14xf32>
  func.return %r : tensor<3x9xf32>
}

// -----

// Negative pads crop, down to an empty dim.
// CHECK-LABEL: func.func @pad_negative
// CHECK: %{{.*}} = tg.pad %x {pads = array<i64: -1, 0, 0, -2>, mode = "constant"} : tensor<4x4xf32> -> tensor<3x2xf32>
// CHECK: %{{.*}} = tg.pad %x {pads = array<i64: -1, 2, 1, -3>, mode = "reflect"} : tensor<4x4xf32> -> tensor<4x3xf32>
// CHECK: %{{.*}} = tg.pad %x {pads = array<i64: -2, 0, -2, 0>, mode = "edge"} : tensor<4x4xf32> -> tensor<0x4xf32>
func.func @pad_negative(%x: tensor<4x4xf32>) -> tensor<3x2xf32> {
  %a = tg.pad %x {pads = array<i64: -1, 0, 0, -2>, mode = "constant"} : tensor<4x4xf32> -> tensor<3x2xf32>
  %b = tg.pad %x {pads = array<i64: -1, 2, 1, -3>, mode = "reflect"} : tensor<4x4xf32> -> tensor<4x3xf32>
  %c = tg.pad %x {pads = array<i64: -2, 0, -2, 0>, mode = "edge"} : tensor<4x4xf32> -> tensor<0x4xf32>
  func.return %a : tensor<3x2xf32>
}

// -----

// depth_to_space in both ONNX modes, and on a blocked NCHW16c tensor (logical channels).
// CHECK-LABEL: func.func @depth_to_space
// CHECK: tg.depth_to_space %x {blocksize = 2 : i64, mode = "DCR"} : tensor<1x8x3x4xf32> -> tensor<1x2x6x8xf32>
// CHECK: tg.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : tensor<1x8x3x4xf32> -> tensor<1x2x6x8xf32>
// CHECK: tg.depth_to_space %b {blocksize = 2 : i64, mode = "DCR"} : tensor<1x4x3x3x16xf32> -> tensor<1x1x6x6x16xf32>
func.func @depth_to_space(%x: tensor<1x8x3x4xf32>, %b: tensor<1x4x3x3x16xf32>) -> tensor<1x1x6x6x16xf32> {
  %d = tg.depth_to_space %x {blocksize = 2 : i64, mode = "DCR"} : tensor<1x8x3x4xf32> -> tensor<1x2x6x8xf32>
  %c = tg.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : tensor<1x8x3x4xf32> -> tensor<1x2x6x8xf32>
  %y = tg.depth_to_space %b {blocksize = 2 : i64, mode = "DCR"} : tensor<1x4x3x3x16xf32> -> tensor<1x1x6x6x16xf32>
  func.return %y : tensor<1x1x6x6x16xf32>
}

// -----

// expand broadcasts to the result type's shape; fill is one value of any shape.
// CHECK-LABEL: func.func @expand_fill
// CHECK: %{{.*}} = tg.expand %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = tg.expand %s : tensor<i1> -> tensor<5xi1>
// CHECK: %{{.*}} = tg.fill {value = 1.500000e+00 : f16} : tensor<2x3xf16>
// CHECK: %{{.*}} = tg.fill {value = -7 : i64} : tensor<i64>
// CHECK: %{{.*}} = tg.fill {value = true} : tensor<0x4xi1>
func.func @expand_fill(%x: tensor<3x1xf32>, %s: tensor<i1>) -> tensor<2x3x4xf32> {
  %a = tg.expand %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
  %b = tg.expand %s : tensor<i1> -> tensor<5xi1>
  %c = tg.fill {value = 1.5 : f16} : tensor<2x3xf16>
  %d = tg.fill {value = -7 : i64} : tensor<i64>
  %e = tg.fill {value = true} : tensor<0x4xi1>
  func.return %a : tensor<2x3x4xf32>
}
