// RUN: %tessel-opt %s --split-input-file -p img-infer-bounds | filecheck %s

// Backwards from a 12x32 crop through a point-wise map and a 5x3 stencil: the map and the
// blur are needed on the ROI only (the blur's input on the ROI grown by its halo: the unit test).
// CHECK-LABEL: func.func @chain
// CHECK:       %b = img.stencil %x window [5, 3] border clamp {img.needed = array<i64: 10, 20, 12, 32>}
// CHECK:       %m = img.map %b {img.needed = array<i64: 10, 20, 12, 32>}
// CHECK:       img.crop %m roi [10, 20, 12, 32]
func.func @chain(%x: !img.frame<64x64x1xui8>) -> !img.frame<12x32x1xui8> {
  %b = img.stencil %x window [5, 3] border clamp : (!img.frame<64x64x1xui8>) -> !img.frame<64x64x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8, %p9: i8, %p10: i8, %p11: i8, %p12: i8, %p13: i8, %p14: i8):
    img.yield %p7 : i8
  }
  %m = img.map %b : (!img.frame<64x64x1xui8>) -> !img.frame<64x64x1xui8> {
  ^bb0(%a: i8):
    img.yield %a : i8
  }
  %c = img.crop %m roi [10, 20, 12, 32] : !img.frame<64x64x1xui8> -> !img.frame<12x32x1xui8>
  func.return %c : !img.frame<12x32x1xui8>
}

// -----

// Two uses need the bounding box of both; a stencil's needs are clipped at the frame edge;
// a downsample scales the region up.
// CHECK-LABEL: func.func @two_uses
// CHECK:       %s = img.stencil %x window [3, 3] border {{[a-z]+}} {img.needed = array<i64: 0, 0, 20, 16>}
// CHECK:       %d = img.downsample %s factor [2, 2] mode {{[a-z]+}} {img.needed = array<i64: 0, 0, 10, 8>}
func.func @two_uses(%x: !img.frame<64x64x1xui8>) -> (!img.frame<4x4x1xui8>, !img.frame<2x8x1xui8>) {
  %s = img.stencil %x window [3, 3] border zero : (!img.frame<64x64x1xui8>) -> !img.frame<64x64x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    img.yield %p4 : i8
  }
  %d = img.downsample %s factor [2, 2] mode nearest : !img.frame<64x64x1xui8> -> !img.frame<32x32x1xui8>
  %a = img.crop %d roi [0, 0, 4, 4] : !img.frame<32x32x1xui8> -> !img.frame<4x4x1xui8>
  %b = img.crop %d roi [8, 0, 2, 8] : !img.frame<32x32x1xui8> -> !img.frame<2x8x1xui8>
  func.return %a, %b : !img.frame<4x4x1xui8>, !img.frame<2x8x1xui8>
}
