// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One clear error per malformed op or type, at the op (types: at the function using them).

func.func @a(%x: !img.frame<8x8x1xui8>) {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.map' op inputs and result must have one shape, got [(8, 8, 1), (8, 4, 1)]
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x4x1xui8> {
  ^bb0(%a: i8):
    img.yield %a : i8
  }
  func.return
}

// -----

func.func @b(%x: !img.frame<8x8x1xui8>) {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.stencil' op border must be one of clamp, zero, mirror, got wrap
  %s = img.stencil %x {window = array<i64: 3, 3>, border = "wrap"} : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    img.yield %p4 : i8
  }
  func.return
}

// -----

func.func @c(%x: !img.frame<8x8x1xui8>) {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.stencil' op body takes 9 arguments of types ['i8', 'i8', 'i8', 'i8', 'i8', 'i8', 'i8', 'i8', 'i8'], got ['i8', 'i8']
  %s = img.stencil %x {window = array<i64: 3, 3>, border = "clamp"} : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8):
    img.yield %p0 : i8
  }
  func.return
}

// -----

func.func @d(%x: !img.frame<8x8x1xui8>) {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.downsample' op factor 3x2 must divide the 8x8 frame
  %d = img.downsample %x {factor = array<i64: 3, 2>, mode = "nearest"} : !img.frame<8x8x1xui8> -> !img.frame<2x4x1xui8>
  func.return
}

// -----

func.func @e(%x: !img.frame<8x8x1xui8>) {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.crop' op roi [6, 0, 4, 4] is not inside the 8x8 frame
  %c = img.crop %x {roi = array<i64: 6, 0, 4, 4>} : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

func.func @f(%x: !img.frame<8x8x1xui8>, %p: !img.frame<1x1x1xui8>) {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.gate' op gates a stream (a single frame has no rate to thin)
  %g = img.gate %x, %p {pass_rate = 0.5 : f64} : !img.frame<8x8x1xui8>, !img.frame<1x1x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}

// -----

func.func @g(%x: !img.frame<8x8x1xui8>) {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.crop' op img.place must be one of node, accel, cloud, got "moon"
  %c = img.crop %x {roi = array<i64: 0, 0, 4, 4>, img.place = "moon"} : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return
}

// -----

// CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:1: error: !img.frame element must be one of ui8, ui16, i8, i16, i32, f32, got f64
func.func @h(%x: !img.frame<8x8x1xf64>) {
  func.return
}

// -----

// CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:1: error: !img.frame of 100000x100000 has 10000000000 pixels, more than the 268435456 a frame may have
func.func @i(%x: !img.frame<100000x100000x1xui8>) {
  func.return
}

// -----

func.func @j(%x: !img.frame<8x8x1xui8>) {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.map' op body must end with img.yield of one i8
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    %w = arith.extui %a : i8 to i16
    img.yield %w : i16
  }
  func.return
}

// -----

func.func @k(%x: !img.frame<8x8x1xui8>) {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'img.encode' op ratio must be in (0, 1], got 2.0
  %e = img.encode %x {ratio = 2.0 : f64, ops_per_pixel = 1.0 : f64} : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}
