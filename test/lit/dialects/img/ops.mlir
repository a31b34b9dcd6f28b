// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @ops
// CHECK:       img.map %x, %y : (!img.frame<8x8x1xui8>, !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
// CHECK:       img.stencil %m window [3, 3] border mirror
// CHECK:       img.reduce %m kind max : !img.frame<8x8x1xui8> -> !img.frame<1x1x1xui8>
// CHECK:       img.scan %m : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi32>
// CHECK:       img.downsample %m factor [2, 4] mode average : !img.frame<8x8x1xui8> -> !img.frame<4x2x1xui8>
// CHECK:       img.upsample %m factor [2, 2] : !img.frame<8x8x1xui8> -> !img.frame<16x16x1xui8>
// CHECK:       img.crop %m roi [1, 2, 3, 4] {img.place = #img<place node>} : !img.frame<8x8x1xui8> -> !img.frame<3x4x1xui8>
// CHECK:       img.remap %m, %lut max_displacement 3 : !img.frame<8x8x1xui8>, !img.frame<4x4x2xi16> -> !img.frame<4x4x1xui8>
func.func @ops(%x: !img.frame<8x8x1xui8>, %y: !img.frame<8x8x1xui8>, %lut: !img.frame<4x4x2xi16>) {
  %m = img.map %x, %y : (!img.frame<8x8x1xui8>, !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8, %b: i8):
    %d = arith.maxui %a, %b : i8
    img.yield %d : i8
  }
  %s = img.stencil %m window [3, 3] border mirror : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    img.yield %p4 : i8
  }
  %r = img.reduce %m kind max : !img.frame<8x8x1xui8> -> !img.frame<1x1x1xui8>
  %i = img.scan %m : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi32>
  %d = img.downsample %m factor [2, 4] mode average : !img.frame<8x8x1xui8> -> !img.frame<4x2x1xui8>
  %u = img.upsample %m factor [2, 2] : !img.frame<8x8x1xui8> -> !img.frame<16x16x1xui8>
  %c = img.crop %m roi [1, 2, 3, 4] {img.place = #img<place node>} : !img.frame<8x8x1xui8> -> !img.frame<3x4x1xui8>
  %w = img.remap %m, %lut max_displacement 3 : !img.frame<8x8x1xui8>, !img.frame<4x4x2xi16> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

// A camera: a stream gated on motion, encoded and sent over a link.
// CHECK-LABEL: func.func @camera
// CHECK:       %s = img.source {fps = 3.000000e+01 : f64, camera = "cam0"} : !img.stream<144x176x1xui8>
// CHECK:       img.gate %s, %p {pass_rate = 1.000000e-01 : f64} : !img.stream<144x176x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<144x176x1xui8>
// CHECK:       img.encode %g {ratio = 5.000000e-02 : f64, ops_per_pixel = 2.000000e+02 : f64}
// CHECK:       img.transmit %e {link = "backscatter", gbps = 1.000000e-03 : f64, nj_per_bit = 1.000000e+00 : f64}
// CHECK:       img.sink %t : !img.stream<144x176x1xui8>
func.func @camera() {
  %s = img.source {fps = 30.0 : f64, camera = "cam0"} : !img.stream<144x176x1xui8>
  %r = img.reduce %s kind max : !img.stream<144x176x1xui8> -> !img.stream<1x1x1xui8>
  %p = img.map %r : (!img.stream<1x1x1xui8>) -> !img.stream<1x1x1xui8> {
  ^bb0(%v: i8):
    img.yield %v : i8
  }
  %g = img.gate %s, %p {pass_rate = 0.1 : f64} : !img.stream<144x176x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<144x176x1xui8>
  %e = img.encode %g {ratio = 0.05 : f64, ops_per_pixel = 200.0 : f64} : !img.stream<144x176x1xui8> -> !img.stream<144x176x1xui8>
  %t = img.transmit %e {link = "backscatter", gbps = 0.001 : f64, nj_per_bit = 1.0 : f64} : !img.stream<144x176x1xui8> -> !img.stream<144x176x1xui8>
  img.sink %t : !img.stream<144x176x1xui8>
  func.return
}

// -----

// Lookup tables (u8/u16 index -> any element type) and downsamples of sizes the factor does
// not divide: floor drops the partial block, ceil keeps it (average: through a border).
// CHECK-LABEL: func.func @tables_and_odd_sizes
// CHECK:       %g = img.lut %x table(dense<[0, 16, 23, 28]> : tensor<4xui8>) : !img.frame<7x9x1xui8> -> !img.frame<7x9x1xui8>
// CHECK:       %w = img.lut %r table(dense<[5.000000e-01, -2.500000e-01]> : tensor<2xf32>) : !img.frame<7x9x1xui16> -> !img.frame<7x9x1xf32>
// CHECK:       img.downsample %g factor [2, 2] mode nearest rounding floor : !img.frame<7x9x1xui8> -> !img.frame<3x4x1xui8>
// CHECK:       img.downsample %g factor [2, 4] mode average rounding ceil border mirror : !img.frame<7x9x1xui8> -> !img.frame<4x3x1xui8>
func.func @tables_and_odd_sizes(%x: !img.frame<7x9x1xui8>, %r: !img.frame<7x9x1xui16>) {
  %g = img.lut %x table(dense<[0, 16, 23, 28]> : tensor<4xui8>) : !img.frame<7x9x1xui8> -> !img.frame<7x9x1xui8>
  %w = img.lut %r table(dense<[0.5, -0.25]> : tensor<2xf32>) : !img.frame<7x9x1xui16> -> !img.frame<7x9x1xf32>
  %f = img.downsample %g factor [2, 2] mode nearest rounding floor : !img.frame<7x9x1xui8> -> !img.frame<3x4x1xui8>
  %c = img.downsample %g factor [2, 4] mode average rounding ceil border mirror : !img.frame<7x9x1xui8> -> !img.frame<4x3x1xui8>
  func.return
}
