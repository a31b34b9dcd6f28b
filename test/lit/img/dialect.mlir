// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @ops
// CHECK:       img.map %x, %y : (!img.frame<8x8x1xui8>, !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
// CHECK:       img.stencil %m {window = array<i64: 3, 3>, border = "mirror"}
// CHECK:       img.reduce %m {kind = "max"} : !img.frame<8x8x1xui8> -> !img.frame<1x1x1xui8>
// CHECK:       img.scan %m : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi32>
// CHECK:       img.downsample %m {factor = array<i64: 2, 4>, mode = "average"} : !img.frame<8x8x1xui8> -> !img.frame<4x2x1xui8>
// CHECK:       img.upsample %m {factor = array<i64: 2, 2>} : !img.frame<8x8x1xui8> -> !img.frame<16x16x1xui8>
// CHECK:       img.crop %m {img.place = "node", roi = array<i64: 1, 2, 3, 4>} : !img.frame<8x8x1xui8> -> !img.frame<3x4x1xui8>
// CHECK:       img.remap %m, %lut {max_displacement = 3 : i64} : !img.frame<8x8x1xui8>, !img.frame<4x4x2xi16> -> !img.frame<4x4x1xui8>
func.func @ops(%x: !img.frame<8x8x1xui8>, %y: !img.frame<8x8x1xui8>, %lut: !img.frame<4x4x2xi16>) {
  %m = img.map %x, %y : (!img.frame<8x8x1xui8>, !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8, %b: i8):
    %d = arith.maxui %a, %b : i8
    img.yield %d : i8
  }
  %s = img.stencil %m {window = array<i64: 3, 3>, border = "mirror"} : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    img.yield %p4 : i8
  }
  %r = img.reduce %m {kind = "max"} : !img.frame<8x8x1xui8> -> !img.frame<1x1x1xui8>
  %i = img.scan %m : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi32>
  %d = img.downsample %m {factor = array<i64: 2, 4>, mode = "average"} : !img.frame<8x8x1xui8> -> !img.frame<4x2x1xui8>
  %u = img.upsample %m {factor = array<i64: 2, 2>} : !img.frame<8x8x1xui8> -> !img.frame<16x16x1xui8>
  %c = img.crop %m {roi = array<i64: 1, 2, 3, 4>, img.place = "node"} : !img.frame<8x8x1xui8> -> !img.frame<3x4x1xui8>
  %w = img.remap %m, %lut {max_displacement = 3 : i64} : !img.frame<8x8x1xui8>, !img.frame<4x4x2xi16> -> !img.frame<4x4x1xui8>
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
  %r = img.reduce %s {kind = "max"} : !img.stream<144x176x1xui8> -> !img.stream<1x1x1xui8>
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
