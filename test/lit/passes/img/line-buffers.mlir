// RUN: %tessel-opt %s --split-input-file -p 'img-fuse,img-line-buffers{report=true}' 2>%t.report | filecheck %s
// RUN: filecheck %s --check-prefix=REPORT < %t.report

// Separable blur on 64-pixel rows: the u16 horizontal pass is line-buffered; the CPU ring
// holds 3 rows (384 B), the raster-order minimum is 2 rows + 1 pixel (258 B).
// CHECK-LABEL: func.func @separable
// CHECK:       %h = img.stencil %x window [1, 3] border clamp {img.compute = #img<compute line_buffer>, img.line_buffer = {rows = 3 : i64, bytes = 384 : i64, min_bytes = 258 : i64}}
// REPORT:      @separable: line buffers
// REPORT:      %h    3 rows        384 B   minimum        258 B
// REPORT:      DRAM traffic avoided vs frame-at-a-time: 8192 B per frame
func.func @separable(%x: !img.frame<32x64x1xui8>) -> !img.frame<32x64x1xui8> {
  %h = img.stencil %x window [1, 3] border clamp : (!img.frame<32x64x1xui8>) -> !img.frame<32x64x1xui16> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    %a = arith.extui %p0 : i8 to i16
    %b = arith.extui %p1 : i8 to i16
    %c = arith.extui %p2 : i8 to i16
    %s = arith.addi %a, %b : i16
    %t = arith.addi %s, %c : i16
    %u = arith.addi %t, %b : i16
    %w = arith.addi %u, %b : i16
    img.yield %w : i16
  }
  %y = img.stencil %h window [3, 1] border clamp : (!img.frame<32x64x1xui16>) -> !img.frame<32x64x1xui8> {
  ^bb0(%p0: i16, %p1: i16, %p2: i16):
    %s = arith.addi %p0, %p2 : i16
    %r = arith.trunci %s : i16 to i8
    img.yield %r : i8
  }
  func.return %y : !img.frame<32x64x1xui8>
}

// -----

// A 3x3 stencil feeding a 2x2 average downsample: the stencil's rows are read two at a
// time (2 rows in the ring, minimum 1 row + 2 pixels); its input, read by the stencil two
// output rows at a time, needs 4.
// CHECK-LABEL: func.func @rate_change
// CHECK:       %m = img.map %x {img.compute = #img<compute line_buffer>, img.line_buffer = {rows = 4 : i64, bytes = 64 : i64, min_bytes = 35 : i64}}
// CHECK:       %s = img.stencil %m window {{.*}} {img.compute = #img<compute line_buffer>, img.line_buffer = {rows = 2 : i64, bytes = 32 : i64, min_bytes = 18 : i64}}
func.func @rate_change(%x: !img.frame<16x16x1xui8>) -> !img.frame<8x8x1xui8> {
  %m = img.map %x : (!img.frame<16x16x1xui8>) -> !img.frame<16x16x1xui8> {
  ^bb0(%a: i8):
    %b = arith.muli %a, %a : i8
    %c = arith.muli %b, %a : i8
    %d = arith.muli %c, %a : i8
    img.yield %d : i8
  }
  %s = img.stencil %m window [3, 3] border mirror : (!img.frame<16x16x1xui8>) -> !img.frame<16x16x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    %r = arith.addi %p0, %p8 : i8
    img.yield %r : i8
  }
  %d = img.downsample %s factor [2, 2] mode average : !img.frame<16x16x1xui8> -> !img.frame<8x8x1xui8>
  func.return %d : !img.frame<8x8x1xui8>
}
