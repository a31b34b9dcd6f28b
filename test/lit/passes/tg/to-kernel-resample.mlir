// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// grid_sample reads the position from the grid (x, the last spatial dim, first), maps it
// to pixels in f32 (align_corners: (g + 1) / 2 * (size - 1)), rounds half to even for
// nearest, clamps positions outside the borders (border padding), and reads the input at
// the resulting SSA indices, guarded.
// CHECK-LABEL: func.func @k0_grid_sample(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x3x3xf32>, %[[G:[a-z0-9_]+]]: memref<1x1x2x2xf32>, %[[Y:[a-z0-9_]+]]: memref<1x1x1x2xf32>)
// CHECK:         kernel.compute "grid_sample" %[[Y]](i0 = 1, i1 = 1, i2 = 1, i3 = 2) : memref<1x1x1x2xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index, %[[I2:[a-z0-9_]+]]: index, %[[I3:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[GY:[a-z0-9_]+]] = affine.load %[[G]][%[[I0]], %[[I2]], %[[I3]], 1] : memref<1x1x2x2xf32>
// CHECK-NEXT:      %[[ONE:[a-z0-9_]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[A:[a-z0-9_]+]] = arith.addf %[[GY]], %[[ONE]] : f32
// CHECK-NEXT:      %[[TWO:[a-z0-9_]+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[B:[a-z0-9_]+]] = arith.divf %[[A]], %[[TWO]] : f32
// CHECK-NEXT:      %[[P:[a-z0-9_]+]] = arith.mulf %[[B]], %[[TWO]] : f32
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = math.roundeven %[[P]] : f32
// CHECK:           %[[OUT:[a-z0-9_]+]] = arith.ori %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      %[[LO:[a-z0-9_]+]] = arith.maximumf %[[R]], %{{.*}} : f32
// CHECK-NEXT:      %[[HI:[a-z0-9_]+]] = arith.minimumf %[[LO]], %[[TWO]] : f32
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = arith.select %[[OUT]], %[[HI]], %[[R]] : f32
// CHECK-NEXT:      %[[VI:[a-z0-9_]+]] = arith.fptosi %[[V]] : f32 to i64
// CHECK-NEXT:      %[[ROW:[a-z0-9_]+]] = arith.index_cast %[[VI]] : i64 to index
// CHECK-NEXT:      %{{.*}} = affine.load %[[G]][%[[I0]], %[[I2]], %[[I3]], 0] : memref<1x1x2x2xf32>
// CHECK:           %[[COL:[a-z0-9_]+]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           %{{.*}} = kernel.load %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] pad 0.000000e+00 : f32 : memref<1x1x3x3xf32>
func.func @main(%x: tensor<1x1x3x3xf32>, %g: tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32> {
  %y = tg.grid_sample %x, %g {mode = "nearest", padding_mode = "border", align_corners = true} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32>
  func.return %y : tensor<1x1x1x2xf32>
}

// -----

// col2im sums over the block's taps (k0, k1): a tap reads the column of the block that
// put it on this pixel, when the stride divides the distance and that block exists
// (kernel.load ... when), column = h_block * 1 + w_block for a 2 x 1 grid of blocks.
// CHECK-LABEL: func.func @k0_col2im(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x4x2xf32>, %[[Y:[a-z0-9_]+]]: memref<1x1x3x3xf32>)
// CHECK:         kernel.compute "col2im" %[[Y]](o0 = 1, o1 = 1, o2 = 3, o3 = 3) reduce(k0 = 2, k1 = 2) combine "add" init 0.000000e+00 : f32 : memref<1x1x3x3xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %[[O1:[a-z0-9_]+]]: index, %[[O2:[a-z0-9_]+]]: index, %[[O3:[a-z0-9_]+]]: index, %[[K0:[a-z0-9_]+]]: index, %[[K1:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[REST:[a-z0-9_]+]] = affine.apply affine_map<(d0, d1, d2, d3, d4, d5) -> (((d3 + (d5 * -1)) mod 2))>
// CHECK:           %[[EVEN:[a-z0-9_]+]] = arith.cmpi eq, %[[REST]], %{{.*}} : index
// CHECK:           %[[COND:[a-z0-9_]+]] = arith.andi %[[EVEN]], %{{.*}} : i1
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = kernel.load %[[X]][%[[O0]], %[[O1]] * 4 + %[[K0]] * 2 + %[[K1]], (%[[O2]] + %[[K0]] * -1) floordiv 1 + (%[[O3]] + %[[K1]] * -1) floordiv 2] pad 0.000000e+00 : f32 when %[[COND]] : memref<1x4x2xf32>
// CHECK-NEXT:      kernel.yield %[[V]] : f32
func.func @main(%x: tensor<1x4x2xf32>) -> tensor<1x1x3x3xf32> {
  %y = tg.col2im %x {image_shape = array<i64: 3, 3>, block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 2>} : tensor<1x4x2xf32> -> tensor<1x1x3x3xf32>
  func.return %y : tensor<1x1x3x3xf32>
}
