// RUN: %tessel-opt %s --split-input-file -p img-fuse | filecheck %s

// Two point-wise maps become one; the producer's body comes first.
// CHECK-LABEL: func.func @map_map
// CHECK:       %y = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
// CHECK-NEXT:  ^bb0(%{{.*}}: i8):
// CHECK-NEXT:    %{{.*}} = arith.addi
// CHECK-NEXT:    %{{.*}} = arith.muli
// CHECK-NOT:   img.map
func.func @map_map(%x: !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    %r = arith.addi %a, %a : i8
    img.yield %r : i8
  }
  %y = img.map %m : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    %r = arith.muli %a, %a : i8
    img.yield %r : i8
  }
  func.return %y : !img.frame<8x8x1xui8>
}

// -----

// A cheap map under a clamp stencil is applied to every window pixel (3 adds).
// CHECK-LABEL: func.func @map_into_stencil
// CHECK:       %y = img.stencil %x window [1, 3] border clamp
// CHECK-COUNT-3: arith.addi
// CHECK:       arith.ori
func.func @map_into_stencil(%x: !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    %r = arith.addi %a, %a : i8
    img.yield %r : i8
  }
  %y = img.stencil %m window [1, 3] border clamp : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    %r = arith.ori %p0, %p2 : i8
    img.yield %r : i8
  }
  func.return %y : !img.frame<8x8x1xui8>
}

// -----

// Not under a zero border: the stencil reads 0 there, not map(0).
// CHECK-LABEL: func.func @zero_border_keeps_map
// CHECK:       %m = img.map %x {img.compute = #img<compute line_buffer>}
// CHECK:       %y = img.stencil %m
func.func @zero_border_keeps_map(%x: !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  %m = img.map %x : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    %r = arith.addi %a, %a : i8
    img.yield %r : i8
  }
  %y = img.stencil %m window [1, 3] border zero : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    %r = arith.ori %p0, %p2 : i8
    img.yield %r : i8
  }
  func.return %y : !img.frame<8x8x1xui8>
}

// -----

// A map of one stencil becomes the stencil's tail.
// CHECK-LABEL: func.func @stencil_map
// CHECK:       %y = img.stencil %x window [3, 1] border mirror : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui16>
// CHECK:         arith.addi
// CHECK:         arith.extui
// CHECK:         img.yield %{{.*}} : i16
func.func @stencil_map(%x: !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui16> {
  %s = img.stencil %x window [3, 1] border mirror : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    %r = arith.addi %p0, %p2 : i8
    img.yield %r : i8
  }
  %y = img.map %s : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui16> {
  ^bb0(%a: i8):
    %w = arith.extui %a : i8 to i16
    img.yield %w : i16
  }
  func.return %y : !img.frame<8x8x1xui16>
}

// -----

// Separable blur: the horizontal pass is read at 3 rows by the vertical one, too dear to
// recompute: line-buffered (not merged: clamp of clamp is not clamp at the border).
// Sobel's gradients are read once, point-wise, by the magnitude map: inline.
// CHECK-LABEL: func.func @schedule
// CHECK:       %h = img.stencil %x window [1, 3] border {{[a-z]+}} {img.compute = #img<compute line_buffer>}
// CHECK:       %v = img.stencil %h window [3, 1] border {{[a-z]+}} {img.compute = #img<compute line_buffer>}
// CHECK:       %gx = img.stencil %v {{.*}} {img.compute = #img<compute inline>}
// CHECK:       %gy = img.stencil %v {{.*}} {img.compute = #img<compute inline>}
// CHECK:       %y = img.map %gx, %gy
func.func @schedule(%x: !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  %h = img.stencil %x window [1, 3] border clamp : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui16> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    %a = arith.extui %p0 : i8 to i16
    %b = arith.extui %p1 : i8 to i16
    %c = arith.extui %p2 : i8 to i16
    %two = arith.constant 2 : i16
    %b2 = arith.muli %b, %two : i16
    %s = arith.addi %a, %b2 : i16
    %t = arith.addi %s, %c : i16
    img.yield %t : i16
  }
  %v = img.stencil %h window [3, 1] border clamp : (!img.frame<8x8x1xui16>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i16, %p1: i16, %p2: i16):
    %s = arith.addi %p0, %p2 : i16
    %r = arith.trunci %s : i16 to i8
    img.yield %r : i8
  }
  %gx = img.stencil %v window [1, 3] border clamp : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    %r = arith.subi %p2, %p0 : i8
    img.yield %r : i8
  }
  %gy = img.stencil %v window [3, 1] border clamp : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    %r = arith.subi %p2, %p0 : i8
    img.yield %r : i8
  }
  %y = img.map %gx, %gy : (!img.frame<8x8x1xui8>, !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8, %b: i8):
    %r = arith.maxui %a, %b : i8
    img.yield %r : i8
  }
  func.return %y : !img.frame<8x8x1xui8>
}

// -----

// A table read by a map is re-evaluated there (one gather per pixel); under a 3x3 stencil
// nine gathers per pixel cost more than a line buffer.
// CHECK-LABEL: func.func @tables
// CHECK:       %l = img.lut %x table({{.*}}) {img.compute = #img<compute inline>}
// CHECK:       %t = img.lut %x table({{.*}}) {img.compute = #img<compute line_buffer>}
func.func @tables(%x: !img.frame<8x8x1xui8>) -> (!img.frame<8x8x1xi16>, !img.frame<8x8x1xi16>) {
  %l = img.lut %x table(dense<[1, 2, 3]> : tensor<3xi16>) : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi16>
  %m = img.map %l : (!img.frame<8x8x1xi16>) -> !img.frame<8x8x1xi16> {
  ^bb0(%a: i16):
    %r = arith.addi %a, %a : i16
    img.yield %r : i16
  }
  %t = img.lut %x table(dense<[4, 5]> : tensor<2xi16>) : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi16>
  %s = img.stencil %t window [3, 3] border clamp : (!img.frame<8x8x1xi16>) -> !img.frame<8x8x1xi16> {
  ^bb0(%p0: i16, %p1: i16, %p2: i16, %p3: i16, %p4: i16, %p5: i16, %p6: i16, %p7: i16, %p8: i16):
    %r = arith.addi %p0, %p8 : i16
    img.yield %r : i16
  }
  func.return %m, %s : !img.frame<8x8x1xi16>, !img.frame<8x8x1xi16>
}
