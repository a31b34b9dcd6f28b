// RUN: %tessel-opt %s -p tg-fuse,tg-plan-memory,tg-to-kernel,'kernel-to-loops{vector_bits=512}' --split-input-file | filecheck %s

// Row fusion (passes/kernel/loops/row_fusion.py): whisper's layer norm, 1500 rows of 384.
// Its five stages (mean and variance, each an rfactor and its finish, then the output)
// share the row axis and read the statistics only at their own row: one stage function
// loops over the rows (in parallel) and runs each stage's one-row loops inside, so the
// 2.3 MB input is read from memory once instead of three times.
// CHECK-LABEL: func.func @k0_layer_norm__s0(
// CHECK-SAME:    kernel.schedule = "rows i0/1x1500:parallel { o0/1x1 o1/1x1 rf/32x1 |acc| r0/1x12
// CHECK:         scf.for %i0 = %lo to %hi
// CHECK-COUNT-5: vector.load %0[%{{[0-9]+}}, %{{[0-9]+}}] : memref<1500x384xf32>
// CHECK-NOT:     func.func @k0_layer_norm__s1(
// CHECK:         kernel.launch @k0_layer_norm__s0({{.*}}) over 1500
func.func @ln(%x: tensor<1500x384xf32>, %g: tensor<384xf32>, %b: tensor<384xf32>) -> tensor<1500x384xf32> {
  %y = tg.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f64} : (tensor<1500x384xf32>, tensor<384xf32>, tensor<384xf32>) -> tensor<1500x384xf32>
  func.return %y : tensor<1500x384xf32>
}

// -----

// The same on 64 rows: the 96 KB input stays in cache between separate stages, which keep
// their own schedules (row tiles for the reductions' registers).
// CHECK-LABEL: func.func @k0_layer_norm__s0(
// CHECK-NOT:     rows
// CHECK:         func.func @k0_layer_norm__s4(
func.func @small(%x: tensor<64x384xf32>, %g: tensor<384xf32>, %b: tensor<384xf32>) -> tensor<64x384xf32> {
  %y = tg.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f64} : (tensor<64x384xf32>, tensor<384xf32>, tensor<384xf32>) -> tensor<64x384xf32>
  func.return %y : tensor<64x384xf32>
}
