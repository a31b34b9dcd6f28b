// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel | filecheck %s

// tg.dense_packed_bf16 is two stages. `pairs` rounds the activations to bfloat16 in
// integer arithmetic (bits + 0x7FFF + the kept lowest bit, the top half; a NaN keeps
// its top half with the quiet bit) and packs rows 2p and 2p + 1 into one i32 (an odd K's
// last pair reads a padded 0); the product accumulates kernel.bf16dot2 of a word and a
// weight word from zero (kernel-to-loops folds the zero into the accumulator).
// CHECK-LABEL: func.func @k0_dense_packed_bf16(
// CHECK:         kernel.compute "pairs" %pairs(i0 = 3, i1 = 32) : memref<3x32xi32> {
// CHECK:           %[[LO:.+]] = affine.load %0[%i0, %i1 * 2] : memref<3x63xf32>
// CHECK:           %[[HI:.+]] = kernel.load %0[%i0, %i1 * 2 + 1] pad 0.000000e+00 : f32 : memref<3x63xf32>
// CHECK:           %[[U:.+]] = arith.bitcast %[[HI]] : f32 to i32
// CHECK:           arith.constant 32767 : i32
// CHECK:           arith.cmpf uno, %[[HI]], %[[HI]] : f32
// CHECK:           %[[SH:.+]] = arith.shli
// CHECK:           arith.bitcast %[[LO]] : f32 to i32
// CHECK:           %[[WORD:.+]] = arith.ori %[[SH]], %{{.+}} : i32
// CHECK-NEXT:      kernel.yield %[[WORD]] : i32
// CHECK:         kernel.compute "dense_bf162" %2(o0 = 3, o1 = 20) reduce(k2 = 32) combine "add" init 0.000000e+00 : f32 : memref<3x20xf32> {
// CHECK:           %[[A:.+]] = affine.load %pairs[%o0, %k2] : memref<3x32xi32>
// CHECK-NEXT:      %[[B:.+]] = affine.load %1[%o1 floordiv 16, %k2, %o1 mod 16] : memref<2x32x16xi32>
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[D:.+]] = kernel.bf16dot2 %[[Z]], %[[A]], %[[B]] : f32, i32
// CHECK-NEXT:      kernel.yield %[[D]] : f32
func.func @main(%x: tensor<3x63xf32>, %w: tensor<2x32x16xi32>) -> tensor<3x20xf32> {
  %y = tg.dense_packed_bf16 %x, %w {columns = 20 : i64} : (tensor<3x63xf32>, tensor<2x32x16xi32>) -> tensor<3x20xf32>
  func.return %y : tensor<3x20xf32>
}
