// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// The quantization kernels keep the integer structure: 8-bit loads widened to i32, the
// zero point subtracted (left out where it is a known zero, as the weight's here), one
// i32 multiply-add per tap. The requantize epilogue sits in the convolution's then
// region: the multiplier (sx * sw) / sy, the accumulator scaled in the precision asked
// for, rounded half to even, the output zero point added, saturated to ui8 (NaN to 0).
// The input is copied once into a buffer whose border holds the input's zero point.
// CHECK-LABEL: func.func @k0_conv2d_integer_requantize(
// CHECK-SAME:    %[[X:[0-9]+]]: memref<1x2x4x4xi8>, %[[W:[0-9]+]]: memref<3x2x3x3xi8>, %[[XZ:[0-9]+]]: memref<i8>, %{{[0-9]+}}: memref<i8>, %[[SX:[0-9]+]]: memref<f32>, %[[SW:[0-9]+]]: memref<3x1x1xf32>, %[[SY:[0-9]+]]: memref<f32>, %[[ZY:[0-9]+]]: memref<i8>, %[[Y:[0-9]+]]: memref<1x3x4x4xi8>)
// CHECK:         %[[P:.+]] = memref.alloc() : memref<1x2x6x6xi8>
// CHECK-NEXT:    kernel.compute "pad" %[[P]](i0 = 1, i1 = 2, i2 = 6, i3 = 6) : memref<1x2x6x6xi8> {
// CHECK:           %[[IN:.+]] = kernel.load %[[X]][%i0, %i1, %i2 + -1, %i3 + -1] pad 0 : i8 : memref<1x2x4x4xi8>
// CHECK:           %[[Z:.+]] = affine.load %[[XZ]][] : memref<i8>
// CHECK-NEXT:      %[[S:.+]] = arith.select %{{.+}}, %[[IN]], %[[Z]] : i8
// CHECK-NEXT:      kernel.yield %[[S]] : i8
// CHECK:         kernel.compute "conv_integer2" %[[Y]](o0 = 1, o1 = 3, o2 = 4, o3 = 4) reduce(c = 2, kh = 3, kw = 3) combine "add" init 0 : i32 : memref<1x3x4x4xi8> {
// CHECK:           %[[A:.+]] = affine.load %[[P]][%o0, %c, %o2 + %kh, %o3 + %kw] : memref<1x2x6x6xi8>
// CHECK-NEXT:      %[[AZ:.+]] = affine.load %[[XZ]][] : memref<i8>
// CHECK-NEXT:      %[[AW:.+]] = arith.extui %[[A]] : i8 to i32
// CHECK-NEXT:      %[[ZW:.+]] = arith.extui %[[AZ]] : i8 to i32
// CHECK-NEXT:      %[[AC:.+]] = arith.subi %[[AW]], %[[ZW]] : i32
// CHECK-NEXT:      %[[B:.+]] = affine.load %[[W]][%o1, %c, %kh, %kw] : memref<3x2x3x3xi8>
// CHECK-NEXT:      %[[BW:.+]] = arith.extsi %[[B]] : i8 to i32
// CHECK-NEXT:      %[[T:.+]] = arith.muli %[[AC]], %[[BW]] : i32
// CHECK-NEXT:      kernel.yield %[[T]] : i32
// CHECK-NEXT:    } then {
// CHECK-NEXT:    ^bb0(%{{.+}}: index, %[[C:[a-z0-9_]+]]: index, %{{.+}}: index, %{{.+}}: index, %[[ACC:.+]]: i32):
// CHECK-NEXT:      %[[VX:.+]] = affine.load %[[SX]][] : memref<f32>
// CHECK-NEXT:      %[[VW:.+]] = affine.load %[[SW]][%[[C]], 0, 0] : memref<3x1x1xf32>
// CHECK-NEXT:      %[[VY:.+]] = affine.load %[[SY]][] : memref<f32>
// CHECK-NEXT:      %[[VZ:.+]] = affine.load %[[ZY]][] : memref<i8>
// CHECK-NEXT:      %[[M1:.+]] = arith.mulf %[[VX]], %[[VW]] : f32
// CHECK-NEXT:      %[[M:.+]] = arith.divf %[[M1]], %[[VY]] : f32
// CHECK-NEXT:      %[[F:.+]] = arith.sitofp %[[ACC]] : i32 to f32
// CHECK-NEXT:      %[[PR:.+]] = arith.mulf %[[F]], %[[M]] : f32
// CHECK-NEXT:      %[[R:.+]] = math.roundeven %[[PR]] : f32
// CHECK-NEXT:      %[[FZ:.+]] = arith.uitofp %[[VZ]] : i8 to f32
// CHECK-NEXT:      %[[V:.+]] = arith.addf %[[R]], %[[FZ]] : f32
// CHECK-NEXT:      %[[LO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[V1:.+]] = arith.maxnumf %[[V]], %[[LO]] : f32
// CHECK-NEXT:      %[[HI:.+]] = arith.constant 2.550000e+02 : f32
// CHECK-NEXT:      %[[V2:.+]] = arith.minnumf %[[V1]], %[[HI]] : f32
// CHECK-NEXT:      %[[Q:.+]] = arith.fptoui %[[V2]] : f32 to i8
// CHECK-NEXT:      kernel.yield %[[Q]] : i8
func.func @main(%x: tensor<1x2x4x4xui8>, %w: tensor<3x2x3x3xi8>) -> tensor<1x3x4x4xui8> {
  %xz = tg.constant dense<7> : tensor<ui8>
  %wz = tg.constant dense<0> : tensor<i8>
  %sx = tg.constant dense<0.5> : tensor<f32>
  %sw = tg.constant dense<[[[0.25]], [[0.5]], [[1.0]]]> : tensor<3x1x1xf32>
  %sy = tg.constant dense<2.0> : tensor<f32>
  %zy = tg.constant dense<3> : tensor<ui8>
  %c = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xui8>, tensor<3x2x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x4x4xi32>
  %y = tg.requantize %c, %sx, %sw, %sy, %zy {precision = f32} : (tensor<1x3x4x4xi32>, tensor<f32>, tensor<3x1x1xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
  func.return %y : tensor<1x3x4x4xui8>
}

// -----

// Zero points per row of a and per column of b are read at the broadcast index; signed
// and unsigned 8-bit values are widened by sign and zero extension.
// CHECK-LABEL: func.func @k0_matmul_integer(
// CHECK:         kernel.compute "matmul_integer" %{{.+}}(o0 = 2, o1 = 4) reduce(k = 3) combine "add" init 0 : i32 : memref<2x4xi32> {
// CHECK-NEXT:    ^bb0(%o0: index, %o1: index, %k: index):
// CHECK-NEXT:      %[[A:.+]] = affine.load %0[%o0, %k] : memref<2x3xi8>
// CHECK-NEXT:      %[[AZ:.+]] = affine.load %2[%o0, 0] : memref<2x1xi8>
// CHECK-NEXT:      %[[AW:.+]] = arith.extsi %[[A]] : i8 to i32
// CHECK-NEXT:      %[[AZW:.+]] = arith.extsi %[[AZ]] : i8 to i32
// CHECK-NEXT:      %[[AC:.+]] = arith.subi %[[AW]], %[[AZW]] : i32
// CHECK-NEXT:      %[[B:.+]] = affine.load %1[%k, %o1] : memref<3x4xi8>
// CHECK-NEXT:      %[[BZ:.+]] = affine.load %3[%o1] : memref<4xi8>
// CHECK-NEXT:      %[[BW:.+]] = arith.extui %[[B]] : i8 to i32
// CHECK-NEXT:      %[[BZW:.+]] = arith.extui %[[BZ]] : i8 to i32
// CHECK-NEXT:      %[[BC:.+]] = arith.subi %[[BW]], %[[BZW]] : i32
// CHECK-NEXT:      %[[P:.+]] = arith.muli %[[AC]], %[[BC]] : i32
// CHECK-NEXT:      kernel.yield %[[P]] : i32
func.func @main(%a: tensor<2x3xi8>, %b: tensor<3x4xui8>, %az: tensor<2x1xi8>, %bz: tensor<4xui8>) -> tensor<2x4xi32> {
  %m = tg.matmul_integer %a, %b, %az, %bz : (tensor<2x3xi8>, tensor<3x4xui8>, tensor<2x1xi8>, tensor<4xui8>) -> tensor<2x4xi32>
  func.return %m : tensor<2x4xi32>
}

// -----

// Quantize and dequantize are element-wise and fuse. An f16 quotient is rounded to f16
// before rounding to an integer (ONNX's reference divides in the input's type).
// CHECK-LABEL: func.func @k0_quantize_dequantize(
// CHECK:           %[[Q:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      %[[H:.+]] = arith.truncf %[[Q]] : f32 to f16
// CHECK-NEXT:      %[[HF:.+]] = arith.extf %[[H]] : f16 to f32
// CHECK-NEXT:      %[[R:.+]] = math.roundeven %[[HF]] : f32
// CHECK:           %[[I:.+]] = arith.fptosi %{{.+}} : f32 to i16
// CHECK:           %[[IW:.+]] = arith.extsi %[[I]] : i16 to i32
// CHECK-NEXT:      %[[ZW:.+]] = arith.extsi %{{.+}} : i16 to i32
// CHECK-NEXT:      %[[D:.+]] = arith.subi %[[IW]], %[[ZW]] : i32
// CHECK-NEXT:      %[[DF:.+]] = arith.sitofp %[[D]] : i32 to f32
// CHECK-NEXT:      %[[Y:.+]] = arith.mulf %[[DF]], %{{.+}} : f32
// CHECK-NEXT:      kernel.yield %[[Y]] : f32
func.func @main(%x: tensor<4xf16>, %s: tensor<f16>, %z: tensor<i16>) -> tensor<4xf32> {
  %q = tg.quantize %x, %s, %z : (tensor<4xf16>, tensor<f16>, tensor<i16>) -> tensor<4xi16>
  %t = tg.constant dense<0.5> : tensor<f32>
  %d = tg.dequantize %q, %t, %z : (tensor<4xi16>, tensor<f32>, tensor<i16>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// The packed int8 convolution: stage `pack` writes each pixel's four channels as one i32
// of unsigned bytes (int8 with the sign bit flipped), the border reading the zero point
// (-3) as the load's pad; stage `conv_dot4` accumulates kernel.dot4 of those words and
// the packed weights (block o1 floordiv 16, lane o1 mod 16), vectorized along the output
// channels (`lanes(o1)`), and adds the per-channel offset in its then region.
// CHECK-LABEL: func.func @k0_conv2d_integer_packed(
// CHECK:         %[[P:.+]] = memref.alloc() : memref<1x2x7x7xi32>
// CHECK-NEXT:    kernel.compute "pack" %[[P]](i0 = 1, i1 = 2, i2 = 7, i3 = 7) : memref<1x2x7x7xi32> {
// CHECK:           kernel.load %{{.+}}[%i0, %i1 * 4, %i2 + -1, %i3 + -1] pad -3 : i8 : memref<1x6x5x5xi8>
// CHECK-NEXT:      %[[K:.+]] = arith.constant -128 : i8
// CHECK-NEXT:      arith.xori %{{.+}}, %[[K]] : i8
// CHECK:           kernel.load %{{.+}}[%i0, %i1 * 4 + 3, %i2 + -1, %i3 + -1] pad -3 : i8 : memref<1x6x5x5xi8>
// CHECK:           %[[S:.+]] = arith.constant 24 : i32
// CHECK-NEXT:      %[[B3:.+]] = arith.shli %{{.+}}, %[[S]] : i32
// CHECK-NEXT:      %[[WORD:.+]] = arith.ori %{{.+}}, %[[B3]] : i32
// CHECK-NEXT:      kernel.yield %[[WORD]] : i32
// CHECK:         kernel.compute "conv_dot42" %{{.+}}(o0 = 1, o1 = 20, o2 = 5, o3 = 5) reduce(c4 = 2, kh = 3, kw = 3) combine "add" init 0 : i32 lanes(o1) : memref<1x20x5x5xi32> {
// CHECK:           %[[A:.+]] = affine.load %[[P]][%o0, %c4, %o2 + %kh, %o3 + %kw] : memref<1x2x7x7xi32>
// CHECK-NEXT:      %[[W:.+]] = affine.load %{{.+}}[%o1 floordiv 16, %c4, %kh, %kw, %o1 mod 16] : memref<2x2x3x3x16xi32>
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[D:.+]] = kernel.dot4 %[[Z]], %[[A]], %[[W]] : i32
// CHECK-NEXT:      kernel.yield %[[D]] : i32
// CHECK-NEXT:    } then {
// CHECK-NEXT:    ^bb0(%{{.+}}: index, %[[C:[a-z0-9_]+]]: index, %{{.+}}: index, %{{.+}}: index, %[[ACC:.+]]: i32):
// CHECK-NEXT:      %[[O:.+]] = affine.load %{{.+}}[%[[C]]] : memref<20xi32>
// CHECK-NEXT:      %[[R:.+]] = arith.addi %[[ACC]], %[[O]] : i32
// CHECK-NEXT:      kernel.yield %[[R]] : i32
func.func @main(%x: tensor<1x6x5x5xi8>, %w: tensor<2x2x3x3x16xi32>, %o: tensor<20xi32>) -> tensor<1x20x5x5xi32> {
  %xz = tg.constant dense<-3> : tensor<i8>
  %y = tg.conv2d_integer_packed %x, %w, %xz, %o {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x6x5x5xi8>, tensor<2x2x3x3x16xi32>, tensor<i8>, tensor<20xi32>) -> tensor<1x20x5x5xi32>
  func.return %y : tensor<1x20x5x5xi32>
}
