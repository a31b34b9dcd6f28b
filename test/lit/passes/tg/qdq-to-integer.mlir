// RUN: %tessel-opt %s -p tg-qdq-to-integer --split-input-file | filecheck %s

// onnxruntime's QDQ form of an int8 layer (float ops between dequantize and quantize)
// becomes the integer contraction with a requantize epilogue: the 8-bit operands and
// their zero points go to tg.conv2d_integer, the int32 bias (scale sx * sw, zero point 0)
// is added to the accumulator, the per-channel weight scale is laid on the channel axis,
// the requantize is onnxruntime's (f32), and a relu before the quantize is max(q, zy).
// CHECK-LABEL: func.func @conv
// CHECK-NOT:     tg.dequantize
// CHECK:         %[[C:.+]] = tg.conv2d_integer %xq, %wq, %zx, %zw {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xi8>, tensor<3x2x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x3x5x5xi32>
// CHECK-NEXT:    %[[B:.+]] = tg.reshape %bq : tensor<3xi32> -> tensor<3x1x1xi32>
// CHECK-NEXT:    %[[A:.+]] = tg.add %[[C]], %[[B]] : (tensor<1x3x5x5xi32>, tensor<3x1x1xi32>) -> tensor<1x3x5x5xi32>
// CHECK-NEXT:    %[[S:.+]] = tg.reshape %sw : tensor<3x1x1x1xf32> -> tensor<3x1x1xf32>
// CHECK-NEXT:    %[[R:.+]] = tg.requantize %[[A]], %sx, %[[S]], %sy, %zy {precision = f32} : (tensor<1x3x5x5xi32>, tensor<f32>, tensor<3x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x5x5xi8>
// CHECK-NEXT:    %[[M:.+]] = tg.max %[[R]], %zy : (tensor<1x3x5x5xi8>, tensor<i8>) -> tensor<1x3x5x5xi8>
// CHECK-NEXT:    func.return %[[M]] : tensor<1x3x5x5xi8>
func.func @conv(%xq: tensor<1x2x5x5xi8>) -> tensor<1x3x5x5xi8> {
  %sx = tg.constant dense<0.5> : tensor<f32>
  %zx = tg.constant dense<-3> : tensor<i8>
  %wq = tg.constant dense<1> : tensor<3x2x3x3xi8>
  %sw = tg.constant dense<[[[[0.25]]], [[[0.125]]], [[[2.0]]]]> : tensor<3x1x1x1xf32>
  %zw = tg.constant dense<0> : tensor<i8>
  %bq = tg.constant dense<[5, -6, 7]> : tensor<3xi32>
  %sb = tg.constant dense<[0.125, 0.0625, 1.0]> : tensor<3xf32>
  %zb = tg.constant dense<0> : tensor<i32>
  %sy = tg.constant dense<0.75> : tensor<f32>
  %zy = tg.constant dense<4> : tensor<i8>
  %x = tg.dequantize %xq, %sx, %zx : (tensor<1x2x5x5xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x5x5xf32>
  %w = tg.dequantize %wq, %sw, %zw : (tensor<3x2x3x3xi8>, tensor<3x1x1x1xf32>, tensor<i8>) -> tensor<3x2x3x3xf32>
  %b = tg.dequantize %bq, %sb, %zb : (tensor<3xi32>, tensor<3xf32>, tensor<i32>) -> tensor<3xf32>
  %c = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x5xf32>
  %r = tg.relu %c : tensor<1x3x5x5xf32>
  %y = tg.quantize %r, %sy, %zy : (tensor<1x3x5x5xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x5x5xi8>
  func.return %y : tensor<1x3x5x5xi8>
}

// -----

// A gemm with transB and a per-output-channel weight ([N, 1] on the transposed weight) is
// matmul_integer over the transposed weight (folded later), the scale a (N,) vector.
// CHECK-LABEL: func.func @gemm
// CHECK:         %[[S:.+]] = tg.reshape %sb : tensor<3x1xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[T:.+]] = tg.transpose %bq {perm = array<i64: 1, 0>} : tensor<3x4xi8> -> tensor<4x3xi8>
// CHECK-NEXT:    %[[M:.+]] = tg.matmul_integer %aq, %[[T]], %za, %zb : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[A:.+]] = tg.add %[[M]], %cq : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[R:.+]] = tg.requantize %[[A]], %sa, %[[S]], %sy, %zy {precision = f32} : (tensor<2x3xi32>, tensor<f32>, tensor<3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
// CHECK-NEXT:    func.return %[[R]] : tensor<2x3xi8>
func.func @gemm(%aq: tensor<2x4xui8>) -> tensor<2x3xi8> {
  %sa = tg.constant dense<0.5> : tensor<f32>
  %za = tg.constant dense<128> : tensor<ui8>
  %bq = tg.constant dense<[[1, 2, 3, 4], [-1, -2, -3, -4], [5, 6, 7, 8]]> : tensor<3x4xi8>
  %sb = tg.constant dense<[[0.25], [0.5], [1.0]]> : tensor<3x1xf32>
  %zb = tg.constant dense<0> : tensor<i8>
  %cq = tg.constant dense<[1, 2, 3]> : tensor<3xi32>
  %sc = tg.constant dense<[0.125, 0.25, 0.5]> : tensor<3xf32>
  %zc = tg.constant dense<0> : tensor<i32>
  %sy = tg.constant dense<0.1> : tensor<f32>
  %zy = tg.constant dense<0> : tensor<i8>
  %a = tg.dequantize %aq, %sa, %za : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
  %b = tg.dequantize %bq, %sb, %zb : (tensor<3x4xi8>, tensor<3x1xf32>, tensor<i8>) -> tensor<3x4xf32>
  %c = tg.dequantize %cq, %sc, %zc : (tensor<3xi32>, tensor<3xf32>, tensor<i32>) -> tensor<3xf32>
  %g = tg.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = tg.quantize %g, %sy, %zy : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  func.return %y : tensor<2x3xi8>
}

// -----

// A quantized global average pool is the integer sum of xq - zx over the image,
// requantized by sx / (sy * H * W) (onnxruntime's QLinearGlobalAveragePool).
// CHECK-LABEL: func.func @pool
// CHECK:         %[[N:.+]] = tg.constant dense<9.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[SN:.+]] = tg.mul %sy, %[[N]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[X:.+]] = tg.cast %xq : tensor<1x2x3x3xi8> -> tensor<1x2x3x3xi32>
// CHECK-NEXT:    %[[Z:.+]] = tg.cast %zx : tensor<i8> -> tensor<i32>
// CHECK-NEXT:    %[[D:.+]] = tg.sub %[[X]], %[[Z]] : (tensor<1x2x3x3xi32>, tensor<i32>) -> tensor<1x2x3x3xi32>
// CHECK-NEXT:    %[[T:.+]] = tg.reduce_sum %[[D]] {axes = array<i64: 2, 3>, keepdims = true} : tensor<1x2x3x3xi32> -> tensor<1x2x1x1xi32>
// CHECK-NEXT:    %[[ONE:.+]] = tg.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[R:.+]] = tg.requantize %[[T]], %sx, %[[ONE]], %[[SN]], %zy {precision = f32} : (tensor<1x2x1x1xi32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i8>) -> tensor<1x2x1x1xi8>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x2x1x1xi8>
func.func @pool(%xq: tensor<1x2x3x3xi8>) -> tensor<1x2x1x1xi8> {
  %sx = tg.constant dense<0.5> : tensor<f32>
  %zx = tg.constant dense<-3> : tensor<i8>
  %sy = tg.constant dense<0.25> : tensor<f32>
  %zy = tg.constant dense<1> : tensor<i8>
  %x = tg.dequantize %xq, %sx, %zx : (tensor<1x2x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x3x3xf32>
  %p = tg.global_avg_pool2d %x : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  %y = tg.quantize %p, %sy, %zy : (tensor<1x2x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x1x1xi8>
  func.return %y : tensor<1x2x1x1xi8>
}

// -----

// Left as written: a bias whose scale is not sx * sw (the integer sum would change its
// value), an activation quantized per channel, and a contraction whose float result is
// used elsewhere too.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: tg.matmul %
// CHECK-NOT:     tg.matmul_integer
// CHECK-NOT:     tg.requantize
func.func @kept(%aq: tensor<2x4xi8>) -> (tensor<2x3xi8>, tensor<2x3xi8>, tensor<2x3xf32>) {
  %sa = tg.constant dense<0.5> : tensor<f32>
  %pa = tg.constant dense<[[0.5], [0.25]]> : tensor<2x1xf32>
  %za = tg.constant dense<0> : tensor<i8>
  %bq = tg.constant dense<1> : tensor<4x3xi8>
  %sb = tg.constant dense<0.25> : tensor<f32>
  %cq = tg.constant dense<[1, 2, 3]> : tensor<3xi32>
  %sc = tg.constant dense<0.5> : tensor<f32>
  %zc = tg.constant dense<0> : tensor<i32>
  %sy = tg.constant dense<0.1> : tensor<f32>
  %a = tg.dequantize %aq, %sa, %za : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
  %ap = tg.dequantize %aq, %pa, %za : (tensor<2x4xi8>, tensor<2x1xf32>, tensor<i8>) -> tensor<2x4xf32>
  %b = tg.dequantize %bq, %sb, %za : (tensor<4x3xi8>, tensor<f32>, tensor<i8>) -> tensor<4x3xf32>
  %c = tg.dequantize %cq, %sc, %zc : (tensor<3xi32>, tensor<f32>, tensor<i32>) -> tensor<3xf32>
  %g = tg.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y1 = tg.quantize %g, %sy, %za : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  %m = tg.matmul %ap, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y2 = tg.quantize %m, %sy, %za : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  %n = tg.matmul %a, %b : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y3 = tg.quantize %n, %sy, %za : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  func.return %y1, %y2, %n : tensor<2x3xi8>, tensor<2x3xi8>, tensor<2x3xf32>
}
