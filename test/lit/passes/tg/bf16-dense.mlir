// RUN: %tessel-opt %s -p 'tg-bf16-dense{min_macs=0}' --split-input-file | filecheck %s
// RUN: %tessel-opt %s -p tg-bf16-dense --split-input-file | filecheck %s --check-prefix=SMALL

// tg-bf16-dense (--precision bf16) turns each tg.dense_packed whose packed weight is known
// into tg.dense_packed_bf16 over the weight as bfloat16 pairs: word = row 2p + 1 << 16 |
// row 2p, each half rounded to the nearest bfloat16, ties to even.
//   lane 0:  rows  1.0 | -1.0        -> 0xBF803F80 = -1082114176
//   lane 1:  rows  2.0 | 1 + 2^-8    -> the tie goes to the even 1.0: 0x3F804000 = 1065369600
//   lane 2:  rows  3.0 | 1 + 3*2^-8  -> the tie goes to the even 1 + 4*2^-8: 0x3F824040 = 1065500736
//   lane 15: rows 16.0 | 3.0e38      -> 0x7F624180 = 2137145728
// CHECK-LABEL: func.func @inline
// CHECK:         %[[W:.+]] = tg.constant dense<{{\[\[\[}}-1082114176, 1065369600, 1065500736, 1056981120, 1048592544, 16576, 16608, 16640, 16656, 16672, 16688, 16704, 16720, 16736, 16752, 2137145728]]]> : tensor<1x1x16xi32>
// CHECK-NEXT:    %y = tg.dense_packed_bf16 %x, %[[W]] {columns = 16 : i64} : (tensor<3x2xf32>, tensor<1x1x16xi32>) -> tensor<3x16xf32>
// CHECK-NOT:     tg.dense_packed %
func.func @inline(%x: tensor<3x2xf32>) -> tensor<3x16xf32> {
  %w = tg.constant dense<[[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [-1.0, 1.00390625, 1.01171875, 0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0e38]]]> : tensor<1x2x16xf32>
  %y = tg.dense_packed %x, %w {columns = 16 : i64} : (tensor<3x2xf32>, tensor<1x2x16xf32>) -> tensor<3x16xf32>
  func.return %y : tensor<3x16xf32>
}

// -----

// A matrix computed at run time (attention's scores times values) stays float32.
// CHECK-LABEL: func.func @runtime
// CHECK:         tg.dense_packed %x, %w {columns = 16 : i64}
// CHECK-NOT:     tg.dense_packed_bf16
func.func @runtime(%x: tensor<3x2xf32>, %w: tensor<1x2x16xf32>) -> tensor<3x16xf32> {
  %y = tg.dense_packed %x, %w {columns = 16 : i64} : (tensor<3x2xf32>, tensor<1x2x16xf32>) -> tensor<3x16xf32>
  func.return %y : tensor<3x16xf32>
}

// -----

// With the default min_macs (2^20), products this small stay float32: the activations'
// pairs stage would cost more than the product saves.
// (With min_macs=0, as above, it converts.)
// CHECK-LABEL: func.func @small
// CHECK:         tg.dense_packed_bf16
// SMALL-LABEL: func.func @small
// SMALL:         tg.dense_packed %x, %w {columns = 16 : i64}
// SMALL-NOT:     tg.dense_packed_bf16
func.func @small(%x: tensor<3x2xf32>) -> tensor<3x16xf32> {
  %w = tg.constant dense<1.0> : tensor<1x2x16xf32>
  %y = tg.dense_packed %x, %w {columns = 16 : i64} : (tensor<3x2xf32>, tensor<1x2x16xf32>) -> tensor<3x16xf32>
  func.return %y : tensor<3x16xf32>
}
