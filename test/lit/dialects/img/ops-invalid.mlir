// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One clear error per malformed op or type, at the op (types: at the function using them;
// syntax: at the token), one case per verifier path of dialects/img/ (ops.py, types.py).

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.map' op inputs and result must have one shape, got [(8, 8, 1), (8, 4, 1)]
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x4x1xui8> {
  ^bb0(%a: i8):
    img.yield %a : i8
  }
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.map' op the result is a stream exactly when an input is
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.stream<8x8x1xui8> {
  ^bb0(%a: i8):
    img.yield %a : i8
  }
  func.return
}

// -----

func.func @f() {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.map' op needs at least one input
  %m = img.map : () -> !img.frame<8x8x1xui8> {
  ^bb0:
    %c = arith.constant 1 : i8
    img.yield %c : i8
  }
  func.return
}

// -----

func.func @f(%x: tensor<8x8xi8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: Unexpected attribute tensor<8x8xi8>
  %m = img.map %x : (tensor<8x8xi8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    img.yield %a : i8
  }
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.map' op body must end with img.yield of one i8
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    %w = arith.extui %a : i8 to i16
    img.yield %w : i16
  }
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xf32>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.map' op body: math.exp is not supported in image bodies
  %m = img.map %x : (!img.frame<8x8x1xf32>) -> !img.frame<8x8x1xf32> {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    img.yield %e : f32
  }
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:44: error: Expected `clamp`, `zero`, or `mirror`.
  %s = img.stencil %x window [3, 3] border wrap : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    img.yield %p4 : i8
  }
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.stencil' op body takes 9 arguments of types ['i8', 'i8', 'i8', 'i8', 'i8', 'i8', 'i8', 'i8', 'i8'], got ['i8', 'i8']
  %s = img.stencil %x window [3, 3] border clamp : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8):
    img.yield %p0 : i8
  }
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.stencil' op window must be 1..63 on each side, got 0x3
  %s = img.stencil %x window [0, 3] border clamp : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0:
    %c = arith.constant 1 : i8
    img.yield %c : i8
  }
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.stencil' op window takes 2 values, got [3]
  %s = img.stencil %x window [3] border clamp : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    img.yield %p0 : i8
  }
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.stencil' op result shape must equal the input's (8, 8, 1), got (4, 8, 1)
  %s = img.stencil %x window [1, 1] border clamp : (!img.frame<8x8x1xui8>) -> !img.frame<4x8x1xui8> {
  ^bb0(%p0: i8):
    img.yield %p0 : i8
  }
  func.return
}

// -----

func.func @f(%x: !img.stream<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.stencil' op img.stencil mixes frames and streams
  %s = img.stencil %x window [1, 1] border clamp : (!img.stream<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8):
    img.yield %p0 : i8
  }
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xi16>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.lut' op indexes with ui8 or ui16 pixels, got i16
  %l = img.lut %x table(dense<[1, 2]> : tensor<2xui8>) : !img.frame<8x8x1xi16> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.lut' op table has 257 entries; a ui8 index reads 1..256
  %l = img.lut %x table(dense<1> : tensor<257xui8>) : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.lut' op table must be a 1-d tensor, got tensor<2x2xui8>
  %l = img.lut %x table(dense<1> : tensor<2x2xui8>) : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.lut' op table elements must be one of ui8, ui16, i8, i16, i32, f32, got i64
  %l = img.lut %x table(dense<1> : tensor<4xi64>) : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi32>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.lut' op result type should be !img.frame<8x8x1xi16>, got !img.frame<8x8x1xui8>
  %l = img.lut %x table(dense<1> : tensor<4xi16>) : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x3xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.extract' op channel 3 is not one of the input's 3
  %e = img.extract %x channel 3 : !img.frame<8x8x3xui8> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>, %y: !img.frame<8x8x1xi16>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.merge' op merges single-channel images of one type
  %m = img.merge %x, %y : (!img.frame<8x8x1xui8>, !img.frame<8x8x1xi16>) -> !img.frame<8x8x2xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:27: error: Expected `sum`, `min`, or `max`.
  %r = img.reduce %x kind mean : !img.frame<8x8x1xui8> -> !img.frame<1x1x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.reduce' op result type should be !img.frame<1x1x1xi32>, got !img.frame<1x1x1xui8>
  %r = img.reduce %x kind sum : !img.frame<8x8x1xui8> -> !img.frame<1x1x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.scan' op result type should be !img.frame<8x8x1xi32>, got !img.frame<8x8x1xui8>
  %r = img.scan %x : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.downsample' op factor 3x2 must divide the 8x8 frame, or say `rounding floor` or `rounding ceil`
  %d = img.downsample %x factor [3, 2] mode nearest : !img.frame<8x8x1xui8> -> !img.frame<2x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.downsample' op factor must be positive, got 0x2
  %d = img.downsample %x factor [0, 2] mode nearest : !img.frame<8x8x1xui8> -> !img.frame<2x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<2x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.downsample' op rounding floor of the 2x8 frame by 3x2 leaves no pixel
  %d = img.downsample %x factor [3, 2] mode nearest rounding floor : !img.frame<2x8x1xui8> -> !img.frame<1x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<7x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.downsample' op rounding ceil averages partial blocks of the 7x8 frame: say their `border` (clamp, zero or mirror)
  %d = img.downsample %x factor [2, 2] mode average rounding ceil : !img.frame<7x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<7x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.downsample' op border is read only by an average downsample with rounding ceil
  %d = img.downsample %x factor [2, 2] mode nearest rounding ceil border zero : !img.frame<7x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<7x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.downsample' op result type should be !img.frame<3x4x1xui8>, got !img.frame<4x4x1xui8>
  %d = img.downsample %x factor [2, 2] mode nearest rounding floor : !img.frame<7x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.upsample' op factor must be positive, got 2x0
  %u = img.upsample %x factor [2, 0] : !img.frame<8x8x1xui8> -> !img.frame<16x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.crop' op roi [6, 0, 4, 4] is not inside the 8x8 frame
  %c = img.crop %x roi [6, 0, 4, 4] : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.crop' op roi (y, x, height, width) takes 4 values, got [0, 0, 4]
  %c = img.crop %x roi [0, 0, 4] : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.crop' op img.place must be #img<place node|accel|cloud>, got "moon"
  %c = img.crop %x roi [0, 0, 4, 4] {img.place = "moon"} : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>, %p: !img.frame<1x1x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: !img.frame<8x8x1xui8> should be of base attribute img.stream
  %g = img.gate %x, %p {pass_rate = 0.5 : f64} : !img.frame<8x8x1xui8>, !img.frame<1x1x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.stream<8x8x1xui8>, %p: !img.frame<2x1x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.gate' op predicate must be 1x1x1, got (2, 1, 1)
  %g = img.gate %x, %p {pass_rate = 0.5 : f64} : !img.stream<8x8x1xui8>, !img.frame<2x1x1xui8> -> !img.stream<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.stream<8x8x1xui8>, %p: !img.frame<1x1x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.gate' op pass_rate must be in (0, 1], got 1.5
  %g = img.gate %x, %p {pass_rate = 1.5 : f64} : !img.stream<8x8x1xui8>, !img.frame<1x1x1xui8> -> !img.stream<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.encode' op ratio must be in (0, 1], got 2.0
  %e = img.encode %x {ratio = 2.0 : f64, ops_per_pixel = 1.0 : f64} : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.transmit' op gbps must be positive and nj_per_bit non-negative
  %t = img.transmit %x {link = "wifi", gbps = 0.0 : f64, nj_per_bit = 1.0 : f64} : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f() {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.source' op fps must be positive, got 0.0
  %s = img.source {fps = 0.0 : f64} : !img.stream<8x8x1xui8>
  func.return
}

// -----

func.func @f() {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.source' op count must be positive, got 0
  %s = img.source {fps = 1.0 : f64, count = 0 : i64} : !img.stream<8x8x1xui8>
  func.return
}

// -----

func.func @f() {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: !img.frame<8x8x1xui8> should be of base attribute img.stream
  %s = img.source {fps = 1.0 : f64} : !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<2x2x1xui8>, %w: !img.frame<5x3x1xi8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.dense' op weights must be 4xKx1 i8 for a (2, 2, 1) input, got !img.frame<5x3x1xi8>
  %d = img.dense %x, %w : !img.frame<2x2x1xui8>, !img.frame<5x3x1xi8> -> !img.frame<1x1x3xi32>
  func.return
}

// -----

func.func @f(%x: !img.frame<2x2x1xf32>, %w: !img.frame<4x3x1xi8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.dense' op input must be an integer image, got f32
  %d = img.dense %x, %w : !img.frame<2x2x1xf32>, !img.frame<4x3x1xi8> -> !img.frame<1x1x3xi32>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>, %l: !img.frame<4x4x1xi16>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.remap' op lut must have 2 channels of i16 or i32 (row, column), got !img.frame<4x4x1xi16>
  %r = img.remap %x, %l max_displacement 2 : !img.frame<8x8x1xui8>, !img.frame<4x4x1xi16> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>, %l: !img.frame<4x4x2xi16>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.remap' op max_displacement must be non-negative
  %r = img.remap %x, %l max_displacement -1 : !img.frame<8x8x1xui8>, !img.frame<4x4x2xi16> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

// CHECK: ops-invalid.mlir:[[# @LINE + 1]]:1: error: !img.frame element must be one of ui8, ui16, i8, i16, i32, f32, got f64
func.func @f(%x: !img.frame<8x8x1xf64>) {
  func.return
}

// -----

// CHECK: ops-invalid.mlir:[[# @LINE + 1]]:1: error: !img.frame of 100000x100000 has 10000000000 pixels, more than the 268435456 a frame may have
func.func @f(%x: !img.frame<100000x100000x1xui8>) {
  func.return
}

// -----

// CHECK: ops-invalid.mlir:[[# @LINE + 1]]:1: error: !img.frame dimensions must be positive, got 8x0x1
func.func @f(%x: !img.frame<8x0x1xui8>) {
  func.return
}

// -----

// CHECK: ops-invalid.mlir:[[# @LINE + 1]]:29: error: !img.frame takes height x width x channels x element, got 2 dimensions
func.func @f(%x: !img.frame<8x8xui8>) {
  func.return
}
