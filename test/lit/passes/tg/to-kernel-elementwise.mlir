// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// The scalar code of family A's element-wise ops (passes/tg/lowering/elementwise.py and
// logic.py): integer semantics without undefined behaviour, IEEE-ordered comparisons.

// Integer mod never divides by 0 or -1 (MIN rem -1 traps): such divisors give 0. The C
// remainder (remsi) moves to the divisor's sign when they differ (numpy's mod).
// CHECK-LABEL: func.func @k0_mod(
// CHECK:         %[[X:[0-9]+]] = affine.load
// CHECK-NEXT:    %[[Y:[0-9]+]] = affine.load
// CHECK-NEXT:    %[[ZERO:[0-9]+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ONE:[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[ISZERO:[0-9]+]] = arith.cmpi eq, %[[Y]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[M1:[0-9]+]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[ISM1:[0-9]+]] = arith.cmpi eq, %[[Y]], %[[M1]] : i32
// CHECK-NEXT:    %[[TRIVIAL:[0-9]+]] = arith.ori %[[ISZERO]], %[[ISM1]] : i1
// CHECK-NEXT:    %[[SAFE:[0-9]+]] = arith.select %[[TRIVIAL]], %[[ONE]], %[[Y]] : i32
// CHECK-NEXT:    %[[R:[0-9]+]] = arith.remsi %[[X]], %[[SAFE]] : i32
// CHECK:         %[[MOVED:[0-9]+]] = arith.addi %[[R]], %[[Y]] : i32
// CHECK-NEXT:    %[[FLOORED:[0-9]+]] = arith.select %{{[0-9]+}}, %[[MOVED]], %[[R]] : i32
// CHECK-NEXT:    %[[OUT:[0-9]+]] = arith.select %[[TRIVIAL]], %[[ZERO]], %[[FLOORED]] : i32
// CHECK-NEXT:    kernel.yield %[[OUT]] : i32
func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %m = tg.mod %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %m : tensor<4xi32>
}

// -----

// Float fmod is llvm.frem (exact; xDSL's arith has no remf), on f16 in f32 and rounded once.
// CHECK-LABEL: func.func @k0_mod(
// CHECK:         %[[R:[0-9]+]] = llvm.frem %{{[0-9]+}}, %{{[0-9]+}} : f32
// CHECK-NEXT:    %{{[0-9]+}} = arith.truncf %[[R]] : f32 to f16
// CHECK:         kernel.yield %{{[0-9]+}} : f16
func.func @main(%x: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xf16> {
  %m = tg.mod %x, %y {fmod = true} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  func.return %m : tensor<4xf16>
}

// -----

// A shift amount is checked once, unsigned (negative amounts fail it too); out of range
// gives 0 to the left, the sign fill to the right.
// CHECK-LABEL: func.func @k0_bitshift(
// CHECK:         %[[X:[0-9]+]] = affine.load %{{[0-9]+}}[%i0] : memref<4xi8>
// CHECK-NEXT:    %[[N:[0-9]+]] = affine.load %{{[0-9]+}}[] : memref<i8>
// CHECK-NEXT:    %[[ZERO:[0-9]+]] = arith.constant 0 : i8
// CHECK-NEXT:    %[[W:[0-9]+]] = arith.constant 8 : i8
// CHECK-NEXT:    %[[OK:[0-9]+]] = arith.cmpi ult, %[[N]], %[[W]] : i8
// CHECK-NEXT:    %[[SAFE:[0-9]+]] = arith.select %[[OK]], %[[N]], %[[ZERO]] : i8
// CHECK-NEXT:    %[[S:[0-9]+]] = arith.shli %[[X]], %[[SAFE]] : i8
// CHECK-NEXT:    %[[OUT:[0-9]+]] = arith.select %[[OK]], %[[S]], %[[ZERO]] : i8
// CHECK-NEXT:    kernel.yield %[[OUT]] : i8
func.func @main(%x: tensor<4xui8>, %n: tensor<ui8>) -> tensor<4xui8> {
  %s = tg.bitshift %x, %n {direction = "left"} : (tensor<4xui8>, tensor<ui8>) -> tensor<4xui8>
  func.return %s : tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @k0_bitshift(
// CHECK:         %[[OK:[0-9]+]] = arith.cmpi ult, %{{[0-9]+}}, %{{[0-9]+}} : i8
// CHECK-NEXT:    %[[SAFE:[0-9]+]] = arith.select %[[OK]]
// CHECK-NEXT:    %[[SEVEN:[0-9]+]] = arith.constant 7 : i8
// CHECK-NEXT:    %[[FILL:[0-9]+]] = arith.shrsi %[[X:[0-9]+]], %[[SEVEN]] : i8
// CHECK-NEXT:    %[[S:[0-9]+]] = arith.shrsi %[[X]], %[[SAFE]] : i8
// CHECK-NEXT:    %[[OUT:[0-9]+]] = arith.select %[[OK]], %[[S]], %[[FILL]] : i8
func.func @main(%x: tensor<4xi8>, %n: tensor<4xi8>) -> tensor<4xi8> {
  %s = tg.bitshift %x, %n {direction = "right"} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  func.return %s : tensor<4xi8>
}

// -----

// A comparison feeding a where fuses into one stage; both broadcast (the condition is
// read at [i0, 0]) and the float comparison is ordered (false with NaN).
// CHECK-LABEL: func.func @k0_less_where(
// CHECK:         kernel.compute "less_where" %{{[0-9]+}}(i0 = 3, i1 = 4) : memref<3x4xf32> {
// CHECK:         %[[C:[0-9]+]] = affine.load %{{[0-9]+}}[%i0, 0] : memref<3x1xf32>
// CHECK-NEXT:    %[[Z:[0-9]+]] = affine.load %{{[0-9]+}}[] : memref<f32>
// CHECK-NEXT:    %[[B:[0-9]+]] = arith.cmpf olt, %[[C]], %[[Z]] : f32
// CHECK-NEXT:    %[[X:[0-9]+]] = affine.load %{{[0-9]+}}[%i0, %i1] : memref<3x4xf32>
// CHECK-NEXT:    %[[W:[0-9]+]] = arith.select %[[B]], %[[X]], %[[Z]] : f32
// CHECK-NEXT:    kernel.yield %[[W]] : f32
func.func @main(%c: tensor<3x1xf32>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %zero = tg.constant dense<0.0> : tensor<f32>
  %b = tg.less %c, %zero : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xi1>
  %w = tg.where %b, %x, %zero : (tensor<3x1xi1>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  func.return %w : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @k0_isinf(
// CHECK:         %[[X:[0-9]+]] = arith.extf %{{[0-9]+}} : f16 to f32
// CHECK-NEXT:    %[[INF:[0-9]+]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:    %[[R:[0-9]+]] = arith.cmpf oeq, %[[X]], %[[INF]] : f32
// CHECK-NEXT:    kernel.yield %[[R]] : i1
func.func @main(%x: tensor<4xf16>) -> tensor<4xi1> {
  %i = tg.isinf %x {detect_negative = false} : tensor<4xf16> -> tensor<4xi1>
  func.return %i : tensor<4xi1>
}

// -----

// f16 is carried as f32: bitcast narrows to the stored bits first.
// CHECK-LABEL: func.func @k0_bitcast(
// CHECK:         %[[W:[0-9]+]] = arith.extf %{{[0-9]+}} : f16 to f32
// CHECK-NEXT:    %[[H:[0-9]+]] = arith.truncf %[[W]] : f32 to f16
// CHECK-NEXT:    %[[B:[0-9]+]] = arith.bitcast %[[H]] : f16 to i16
// CHECK-NEXT:    kernel.yield %[[B]] : i16
func.func @main(%x: tensor<4xf16>) -> tensor<4xi16> {
  %i = tg.bitcast %x : tensor<4xf16> -> tensor<4xi16>
  func.return %i : tensor<4xi16>
}

// -----

// sign keeps x where it is neither positive nor negative (±0, NaN).
// CHECK-LABEL: func.func @k0_sign(
// CHECK:         %[[X:[0-9]+]] = affine.load
// CHECK-NEXT:    %[[Z:[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ONE:[0-9]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[NEG:[0-9]+]] = arith.cmpf olt, %[[X]], %[[Z]] : f32
// CHECK-NEXT:    %[[M1:[0-9]+]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:    %[[REST:[0-9]+]] = arith.select %[[NEG]], %[[M1]], %[[X]] : f32
// CHECK-NEXT:    %[[POS:[0-9]+]] = arith.cmpf ogt, %[[X]], %[[Z]] : f32
// CHECK-NEXT:    %[[S:[0-9]+]] = arith.select %[[POS]], %[[ONE]], %[[REST]] : f32
// CHECK-NEXT:    kernel.yield %[[S]] : f32
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = tg.sign %x : tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

// Transcendental functions stay math ops: the target picks a polynomial, libm or libdevice.
// CHECK-LABEL: func.func @k0_sin_expm1_log1p_pow(
// CHECK:         %[[S:[0-9]+]] = math.sin %{{[0-9]+}} : f64
// CHECK-NEXT:    %[[E:[0-9]+]] = math.expm1 %[[S]] : f64
// CHECK-NEXT:    %[[L:[0-9]+]] = math.log1p %[[E]] : f64
// CHECK-NEXT:    %[[P:[0-9]+]] = math.powf %[[L]], %[[L]] : f64
func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %s = tg.sin %x : tensor<4xf64>
  %e = tg.expm1 %s : tensor<4xf64>
  %l = tg.log1p %e : tensor<4xf64>
  %p = tg.pow %l, %l : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %p : tensor<4xf64>
}
