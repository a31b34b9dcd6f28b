// RUN: %tessel-opt %s --split-input-file -p img-hoist-reductions | filecheck %s

// A crop at the end climbs through a point-wise map and a 3x3 stencil: the stencil runs on the
// ROI grown by its halo (rows 9..22, columns 19..52), only the ROI survives.
// CHECK-LABEL: func.func @crop
// CHECK-NEXT:    %[[G:.*]] = img.crop %x roi [9, 19, 14, 34] : !img.frame<64x64x1xui8> -> !img.frame<14x34x1xui8>
// CHECK-NEXT:    %[[S:.*]] = img.stencil %[[G]] {{.*}} : (!img.frame<14x34x1xui8>) -> !img.frame<14x34x1xui8>
// CHECK:         %[[I:.*]] = img.crop %[[S]] roi [1, 1, 12, 32] : !img.frame<14x34x1xui8> -> !img.frame<12x32x1xui8>
// CHECK-NEXT:    %[[B:.*]] = img.crop %bg roi [10, 20, 12, 32]
// CHECK-NEXT:    %[[M:.*]] = img.map %[[I]], %[[B]] : (!img.frame<12x32x1xui8>, !img.frame<12x32x1xui8>) -> !img.frame<12x32x1xui8>
// CHECK:         func.return %[[M]]
func.func @crop(%x: !img.frame<64x64x1xui8>, %bg: !img.frame<64x64x1xui8>) -> !img.frame<12x32x1xui8> {
  %s = img.stencil %x window [3, 3] border clamp : (!img.frame<64x64x1xui8>) -> !img.frame<64x64x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    %m = arith.maxui %p1, %p7 : i8
    img.yield %m : i8
  }
  %d = img.map %s, %bg : (!img.frame<64x64x1xui8>, !img.frame<64x64x1xui8>) -> !img.frame<64x64x1xui8> {
  ^bb0(%a: i8, %b: i8):
    %r = arith.subi %a, %b : i8
    img.yield %r : i8
  }
  %c = img.crop %d roi [10, 20, 12, 32] : !img.frame<64x64x1xui8> -> !img.frame<12x32x1xui8>
  func.return %c : !img.frame<12x32x1xui8>
}

// -----

// A motion gate climbs above the expensive stencil: only moving frames get filtered.
// CHECK-LABEL: func.func @gate
// CHECK:         %[[P:.*]] = img.map %r
// CHECK:         %[[G:.*]] = img.gate %s, %[[P]] {pass_rate = 1.000000e-01 : f64}
// CHECK-NEXT:    img.stencil %[[G]]
// CHECK-NOT:     img.gate
func.func @gate() -> !img.stream<16x16x1xui8> {
  %s = img.source {fps = 30.0 : f64} : !img.stream<16x16x1xui8>
  %r = img.reduce %s kind max : !img.stream<16x16x1xui8> -> !img.stream<1x1x1xui8>
  %p = img.map %r : (!img.stream<1x1x1xui8>) -> !img.stream<1x1x1xui8> {
  ^bb0(%v: i8):
    img.yield %v : i8
  }
  %f = img.stencil %s window [3, 3] border zero : (!img.stream<16x16x1xui8>) -> !img.stream<16x16x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    img.yield %p4 : i8
  }
  %g = img.gate %f, %p {pass_rate = 0.1 : f64} : !img.stream<16x16x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<16x16x1xui8>
  func.return %g : !img.stream<16x16x1xui8>
}

// -----

// The gate's predicate is computed from the filtered frames: it cannot move above the filter.
// CHECK-LABEL: func.func @gate_depends
// CHECK:         img.stencil %s
// CHECK:         img.gate %f
func.func @gate_depends() -> !img.stream<16x16x1xui8> {
  %s = img.source {fps = 30.0 : f64} : !img.stream<16x16x1xui8>
  %f = img.stencil %s window [3, 3] border zero : (!img.stream<16x16x1xui8>) -> !img.stream<16x16x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    img.yield %p4 : i8
  }
  %r = img.reduce %f kind max : !img.stream<16x16x1xui8> -> !img.stream<1x1x1xui8>
  %g = img.gate %f, %r {pass_rate = 0.1 : f64} : !img.stream<16x16x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<16x16x1xui8>
  func.return %g : !img.stream<16x16x1xui8>
}

// -----

// A nearest downsample moves before a point-wise map (an average one would not be exact).
// CHECK-LABEL: func.func @down
// CHECK-NEXT:    %[[D:.*]] = img.downsample %x factor [2, 2] mode nearest : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
// CHECK-NEXT:    img.map %[[D]]
// CHECK-LABEL: func.func @down_average
// CHECK-NEXT:    img.map %x
func.func @down(%x: !img.frame<8x8x1xui8>) -> !img.frame<4x4x1xui8> {
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    %r = arith.muli %a, %a : i8
    img.yield %r : i8
  }
  %d = img.downsample %m factor [2, 2] mode nearest : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return %d : !img.frame<4x4x1xui8>
}
func.func @down_average(%x: !img.frame<8x8x1xui8>) -> !img.frame<4x4x1xui8> {
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    %r = arith.muli %a, %a : i8
    img.yield %r : i8
  }
  %d = img.downsample %m factor [2, 2] mode average : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return %d : !img.frame<4x4x1xui8>
}

// -----

// A gamma table before a nearest downsample of an odd frame (rounding ceil): the downsample
// moves above the table, which then reads the kept pixels only.
// CHECK-LABEL: func.func @table_then_downsample
// CHECK-NEXT:    %[[D:.*]] = img.downsample %x factor [2, 2] mode nearest rounding ceil : !img.frame<7x9x1xui8> -> !img.frame<4x5x1xui8>
// CHECK-NEXT:    %[[L:.*]] = img.lut %[[D]] table(dense<[0, 64, 128, 255]> : tensor<4xui8>) : !img.frame<4x5x1xui8> -> !img.frame<4x5x1xui8>
// CHECK-NEXT:    func.return %[[L]]
func.func @table_then_downsample(%x: !img.frame<7x9x1xui8>) -> !img.frame<4x5x1xui8> {
  %g = img.lut %x table(dense<[0, 64, 128, 255]> : tensor<4xui8>) : !img.frame<7x9x1xui8> -> !img.frame<7x9x1xui8>
  %d = img.downsample %g factor [2, 2] mode nearest rounding ceil : !img.frame<7x9x1xui8> -> !img.frame<4x5x1xui8>
  func.return %d : !img.frame<4x5x1xui8>
}

// -----

// An average downsample does not commute with a table: nothing moves.
// CHECK-LABEL: func.func @table_then_average
// CHECK-NEXT:    img.lut %x
// CHECK-NEXT:    img.downsample
func.func @table_then_average(%x: !img.frame<8x8x1xui8>) -> !img.frame<4x4x1xui8> {
  %g = img.lut %x table(dense<[0, 64, 128, 255]> : tensor<4xui8>) : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xui8>
  %d = img.downsample %g factor [2, 2] mode average : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return %d : !img.frame<4x4x1xui8>
}
