// RUN: %tessel-opt %s -p tg-split-concat --split-input-file | filecheck %s
// RUN: %tessel-opt %s -p tg-split-concat,tg-fuse --split-input-file | filecheck %s --check-prefix=FUSE

// tg-split-concat: a concat of more than 8 pieces (CONCAT_FAN_IN) becomes a tree of concats
// of at most 8, the pieces grouped in order and as evenly as possible; the result keeps its
// type and name. tg-fuse then keeps the levels in separate kernels: a kernel holds at most
// 8 concat pieces, since each is a select at every element.

// Eight pieces: left alone.
// CHECK-LABEL: func.func @eight
// CHECK-NEXT:    %y = tg.concat %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7 {axis = 1 : i64}
// CHECK-NEXT:    func.return %y
func.func @eight(%a0: tensor<2x1xf32>, %a1: tensor<2x1xf32>, %a2: tensor<2x1xf32>, %a3: tensor<2x1xf32>, %a4: tensor<2x1xf32>, %a5: tensor<2x1xf32>, %a6: tensor<2x1xf32>, %a7: tensor<2x1xf32>) -> tensor<2x8xf32> {
  %y = tg.concat %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7 {axis = 1 : i64} : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// FUSE-LABEL: func.func @eight
// FUSE-COUNT-1: tg.fused
// FUSE-NOT:     tg.fused

// -----

// Ten pieces of different widths: two concats of five, and one of those two.
// CHECK-LABEL: func.func @ten
// CHECK-NEXT:    %[[A:.+]] = tg.concat %a0, %a1, %a2, %a3, %a4 {axis = 0 : i64} : ({{.*}}) -> tensor<15x2xf32>
// CHECK-NEXT:    %[[B:.+]] = tg.concat %a5, %a6, %a7, %a8, %a9 {axis = 0 : i64} : ({{.*}}) -> tensor<5x2xf32>
// CHECK-NEXT:    %y = tg.concat %[[A]], %[[B]] {axis = 0 : i64} : (tensor<15x2xf32>, tensor<5x2xf32>) -> tensor<20x2xf32>
// CHECK-NEXT:    func.return %y
func.func @ten(%a0: tensor<1x2xf32>, %a1: tensor<2x2xf32>, %a2: tensor<3x2xf32>, %a3: tensor<4x2xf32>, %a4: tensor<5x2xf32>, %a5: tensor<1x2xf32>, %a6: tensor<1x2xf32>, %a7: tensor<1x2xf32>, %a8: tensor<1x2xf32>, %a9: tensor<1x2xf32>) -> tensor<20x2xf32> {
  %y = tg.concat %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9 {axis = 0 : i64} : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>, tensor<4x2xf32>, tensor<5x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<20x2xf32>
  func.return %y : tensor<20x2xf32>
}

// Two kernels: the outer concat takes in the first half (2 + 5 pieces), not the second.
// FUSE-LABEL: func.func @ten
// FUSE:         %[[B:.+]] = tg.fused "concat"(%a5, %a6, %a7, %a8, %a9)
// FUSE:         %y = tg.fused "concat_concat"(%a0, %a1, %a2, %a3, %a4, %[[B]])
// FUSE-NOT:     tg.fused

// -----

// Seventeen pieces: three groups (6, 6, 5), then the three.
// CHECK-LABEL: func.func @seventeen
// CHECK-NEXT:    %[[A:.+]] = tg.concat %a0, %a1, %a2, %a3, %a4, %a5 {axis = 0 : i64}{{.*}} -> tensor<6xf32>
// CHECK-NEXT:    %[[B:.+]] = tg.concat %a6, %a7, %a8, %a9, %a10, %a11 {axis = 0 : i64}{{.*}} -> tensor<6xf32>
// CHECK-NEXT:    %[[C:.+]] = tg.concat %a12, %a13, %a14, %a15, %a16 {axis = 0 : i64}{{.*}} -> tensor<5xf32>
// CHECK-NEXT:    %y = tg.concat %[[A]], %[[B]], %[[C]] {axis = 0 : i64}{{.*}} -> tensor<17xf32>
// Three kernels: the outer concat takes in the last group (3 + 5 pieces), not a group of 6.
// FUSE-LABEL: func.func @seventeen
// FUSE:         %[[A:.+]] = tg.fused "concat"(%a0, %a1, %a2, %a3, %a4, %a5)
// FUSE:         %[[B:.+]] = tg.fused "concat"(%a6, %a7, %a8, %a9, %a10, %a11)
// FUSE:         %y = tg.fused "concat_concat"(%a12, %a13, %a14, %a15, %a16, %[[A]], %[[B]])
// FUSE-NOT:     tg.fused
func.func @seventeen(%a0: tensor<1xf32>, %a1: tensor<1xf32>, %a2: tensor<1xf32>, %a3: tensor<1xf32>, %a4: tensor<1xf32>, %a5: tensor<1xf32>, %a6: tensor<1xf32>, %a7: tensor<1xf32>, %a8: tensor<1xf32>, %a9: tensor<1xf32>, %a10: tensor<1xf32>, %a11: tensor<1xf32>, %a12: tensor<1xf32>, %a13: tensor<1xf32>, %a14: tensor<1xf32>, %a15: tensor<1xf32>, %a16: tensor<1xf32>) -> tensor<17xf32> {
  %y = tg.concat %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15, %a16 {axis = 0 : i64} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<17xf32>
  func.return %y : tensor<17xf32>
}

// -----

// Without a wide concat the pass changes nothing, and tg-fuse still fuses small concats
// that stay within 8 pieces (3 + 4), but not two of 5.
// CHECK-LABEL: func.func @small
// CHECK-NEXT:    %c = tg.concat %a, %b, %a {axis = 0 : i64}
// CHECK-NEXT:    %y = tg.concat %c, %a, %b, %a {axis = 0 : i64}
// CHECK-NEXT:    %d = tg.concat %a, %b, %a, %b, %a {axis = 0 : i64}
// CHECK-NEXT:    %z = tg.concat %d, %a, %b, %a, %b {axis = 0 : i64}
func.func @small(%a: tensor<1xf32>, %b: tensor<1xf32>) -> (tensor<6xf32>, tensor<9xf32>) {
  %c = tg.concat %a, %b, %a {axis = 0 : i64} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3xf32>
  %y = tg.concat %c, %a, %b, %a {axis = 0 : i64} : (tensor<3xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<6xf32>
  %d = tg.concat %a, %b, %a, %b, %a {axis = 0 : i64} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<5xf32>
  %z = tg.concat %d, %a, %b, %a, %b {axis = 0 : i64} : (tensor<5xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<9xf32>
  func.return %y, %z : tensor<6xf32>, tensor<9xf32>
}

// FUSE-LABEL: func.func @small
// FUSE:         %y = tg.fused "concat_concat"(%a, %b)
// FUSE:         %d = tg.fused "concat"(%a, %b)
// FUSE:         %z = tg.fused "concat"(%d, %a, %b)

// -----

// Ten pieces that are contiguous slabs of a result the function does not return (axis 0):
// left whole, and tg-fuse keeps the concat a group of its own (no exp fused into it), since
// tg-to-kernel copies each piece into place in one pass however many there are.
// CHECK-LABEL: func.func @ten_slabs
// CHECK-NEXT:    %c = tg.concat %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9 {axis = 0 : i64}
// CHECK-NEXT:    %y = tg.exp %c
// FUSE-LABEL: func.func @ten_slabs
// FUSE:         %c = tg.fused "concat"(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9)
// FUSE:         %y = tg.fused "exp"(%c)
func.func @ten_slabs(%a0: tensor<1x2xf32>, %a1: tensor<1x2xf32>, %a2: tensor<1x2xf32>, %a3: tensor<1x2xf32>, %a4: tensor<1x2xf32>, %a5: tensor<1x2xf32>, %a6: tensor<1x2xf32>, %a7: tensor<1x2xf32>, %a8: tensor<1x2xf32>, %a9: tensor<1x2xf32>) -> tensor<10x2xf32> {
  %c = tg.concat %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9 {axis = 0 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<10x2xf32>
  %y = tg.exp %c : tensor<10x2xf32>
  func.return %y : tensor<10x2xf32>
}
