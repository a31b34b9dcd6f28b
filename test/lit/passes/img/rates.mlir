// RUN: %tessel-opt %s --split-input-file -p img-rates --verify-diagnostics | filecheck %s

// Rates follow the source (x cameras) and every gate; the data rate is frames x bits.
// CHECK-LABEL: func.func @rates
// CHECK:       img.source {{.*}}img.fps = 1.200000e+02 : f64, img.mbps = 4.915200e+01 : f64
// CHECK:       img.reduce {{.*}}img.fps = 1.200000e+02 : f64, img.mbps = 9.600000e-04 : f64
// CHECK:       img.gate {{.*}}img.fps = 3.000000e+01 : f64, img.mbps = 1.228800e+01 : f64
// CHECK:       img.downsample {{.*}}img.fps = 3.000000e+01 : f64, img.mbps = 3.072000e+00 : f64
func.func @rates() {
  %s = img.source {fps = 30.0 : f64, count = 4 : i64} : !img.stream<160x320x1xui8>
  %r = img.reduce %s kind max : !img.stream<160x320x1xui8> -> !img.stream<1x1x1xui8>
  %g = img.gate %s, %r {pass_rate = 0.25 : f64} : !img.stream<160x320x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<160x320x1xui8>
  %d = img.downsample %g factor [2, 2] mode nearest : !img.stream<160x320x1xui8> -> !img.stream<80x160x1xui8>
  img.sink %d : !img.stream<80x160x1xui8>
  func.return
}

// -----

func.func @mixed() {
  %s = img.source {fps = 30.0 : f64} : !img.stream<8x8x1xui8>
  %r = img.reduce %s kind max : !img.stream<8x8x1xui8> -> !img.stream<1x1x1xui8>
  %g = img.gate %s, %r {pass_rate = 0.5 : f64} : !img.stream<8x8x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<8x8x1xui8>
  // CHECK: rates.mlir:[[# @LINE + 1]]:3: error: img.map combines values at different rates (15 fps and 30 fps): gate or resample them alike
  %m = img.map %g, %s : (!img.stream<8x8x1xui8>, !img.stream<8x8x1xui8>) -> !img.stream<8x8x1xui8> {
  ^bb0(%a: i8, %b: i8):
    img.yield %a : i8
  }
  func.return
}
