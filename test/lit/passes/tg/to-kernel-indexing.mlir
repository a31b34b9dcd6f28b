// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// A gather reads its index like any element, makes it an `index` (negative ones count
// from the end), and reads the data there through kernel.load ... pad 0, which is what
// an index outside [-n, n) reads. It is injective: the relu after it is the same stage.
// CHECK-LABEL: func.func @k0_gather_relu(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<5x4xf32>, %[[I:[a-z0-9_]+]]: memref<3xi64>, %[[Y:[a-z0-9_]+]]: memref<3x4xf32>)
// CHECK:         kernel.compute "gather_relu" %[[Y]](i0 = 3, i1 = 4) : memref<3x4xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[RAW:[a-z0-9_]+]] = affine.load %[[I]][%[[I0]]] : memref<3xi64>
// CHECK-NEXT:      %[[IDX:[a-z0-9_]+]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-NEXT:      %[[ZERO:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[NEG:[a-z0-9_]+]] = arith.cmpi slt, %[[IDX]], %[[ZERO]] : index
// CHECK-NEXT:      %[[N:[a-z0-9_]+]] = arith.constant 5 : index
// CHECK-NEXT:      %[[UP:[a-z0-9_]+]] = arith.addi %[[IDX]], %[[N]] : index
// CHECK-NEXT:      %[[ROW:[a-z0-9_]+]] = arith.select %[[NEG]], %[[UP]], %[[IDX]] : index
// CHECK:           %[[COL:[a-z0-9_]+]] = affine.apply affine_map<(d0, d1) -> (d1)> (%[[I0]], %[[I1]])
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = kernel.load %[[X]][%[[ROW]], %[[COL]]] pad 0.000000e+00 : f32 : memref<5x4xf32>
// CHECK:           arith.maximumf %[[V]]
func.func @main(%x: tensor<5x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  %g = tg.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %r = tg.relu %g : tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// -----

// A scatter without reduction is a reduction over its updates: each output element finds
// the last update naming it (combine "max" over update positions, -1 for none); the then
// region reads that update, or the data where there is none.
// CHECK-LABEL: func.func @k0_scatter_nd(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<4xf32>, %[[I:[a-z0-9_]+]]: memref<2x1xi64>, %[[U:[a-z0-9_]+]]: memref<2xf32>, %[[Y:[a-z0-9_]+]]: memref<4xf32>)
// CHECK:         kernel.compute "scatter" %[[Y]](o0 = 4) reduce(u0 = 2) combine "max" init -1 : i64 : memref<4xf32> {
// CHECK-NEXT:    ^bb0(%[[O:[a-z0-9_]+]]: index, %[[UP:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[RAW:[a-z0-9_]+]] = affine.load %[[I]][%[[UP]], 0] : memref<2x1xi64>
// CHECK:           %[[HIT:[a-z0-9_]+]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK:           %[[POS:[a-z0-9_]+]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT:      %[[NONE:[a-z0-9_]+]] = arith.constant -1 : i64
// CHECK-NEXT:      %[[T:[a-z0-9_]+]] = arith.select %[[HIT]], %[[POS]], %[[NONE]] : i64
// CHECK-NEXT:      kernel.yield %[[T]] : i64
// CHECK-NEXT:    } then {
// CHECK-NEXT:    ^bb0(%[[O2:[a-z0-9_]+]]: index, %[[ACC:[a-z0-9_]+]]: i64):
// CHECK:           %[[FOUND:[a-z0-9_]+]] = arith.cmpi sge, %[[ACC]], %{{.*}} : i64
// CHECK:           %[[NEW:[a-z0-9_]+]] = kernel.load %[[U]][%{{.*}}] pad 0.000000e+00 : f32 : memref<2xf32>
// CHECK-NEXT:      %[[OLD:[a-z0-9_]+]] = affine.load %[[X]][%[[O2]]] : memref<4xf32>
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = arith.select %[[FOUND]], %[[NEW]], %[[OLD]] : f32
// CHECK-NEXT:      kernel.yield %[[R]] : f32
func.func @main(%x: tensor<4xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  %s = tg.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

// With a reduction, the matching updates combine from the identity (0 for add) and the
// then region applies the sum to the data. scatter_elements only looks along its axis:
// the other coordinates of a candidate update are the output element's own.
// CHECK-LABEL: func.func @k0_scatter_elements(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<3x4xf32>, %[[I:[a-z0-9_]+]]: memref<3x2xi64>, %[[U:[a-z0-9_]+]]: memref<3x2xf32>, %[[Y:[a-z0-9_]+]]: memref<3x4xf32>)
// CHECK:         kernel.compute "scatter_add" %[[Y]](o0 = 3, o1 = 4) reduce(j = 2) combine "add" init 0.000000e+00 : f32 : memref<3x4xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %[[O1:[a-z0-9_]+]]: index, %[[J:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %{{.*}} = affine.load %[[I]][%[[O0]], %[[J]]] : memref<3x2xi64>
// CHECK:           %[[HIT:[a-z0-9_]+]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[NEW:[a-z0-9_]+]] = kernel.load %[[U]][%[[O0]], %[[J]]] pad 0.000000e+00 : f32 : memref<3x2xf32>
// CHECK-NEXT:      %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %{{.*}} = arith.select %[[HIT]], %[[NEW]], %[[ZERO]] : f32
// CHECK:         } then {
// CHECK-NEXT:    ^bb0(%[[P0:[a-z0-9_]+]]: index, %[[P1:[a-z0-9_]+]]: index, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT:      %[[OLD:[a-z0-9_]+]] = affine.load %[[X]][%[[P0]], %[[P1]]] : memref<3x4xf32>
// CHECK-NEXT:      %[[SUM:[a-z0-9_]+]] = arith.addf %[[OLD]], %[[ACC]] : f32
// CHECK-NEXT:      kernel.yield %[[SUM]] : f32
func.func @main(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %s = tg.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  func.return %s : tensor<3x4xf32>
}

// -----

// expand reads size-1 dims at 0 and drops leading ones; trilu compares the column minus
// the row with k and selects zero outside the triangle. Both inline into one stage.
// CHECK-LABEL: func.func @k0_expand_trilu(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<3x1xi64>, %[[Y:[a-z0-9_]+]]: memref<2x3x3xi64>)
// CHECK:         kernel.compute "expand_trilu" %[[Y]](i0 = 2, i1 = 3, i2 = 3) : memref<2x3x3xi64> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index, %[[I2:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = affine.load %[[X]][%[[I1]], 0] : memref<3x1xi64>
// CHECK-NEXT:      %[[D:[a-z0-9_]+]] = affine.apply affine_map<(d0, d1, d2) -> ((d2 + (d1 * -1)))> (%[[I0]], %[[I1]], %[[I2]])
// CHECK-NEXT:      %[[K:[a-z0-9_]+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[KEEP:[a-z0-9_]+]] = arith.cmpi sge, %[[D]], %[[K]] : index
// CHECK-NEXT:      %[[Z:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = arith.select %[[KEEP]], %[[V]], %[[Z]] : i64
// CHECK-NEXT:      kernel.yield %[[R]] : i64
func.func @main(%x: tensor<3x1xi64>) -> tensor<2x3x3xi64> {
  %e = tg.expand %x : tensor<3x1xi64> -> tensor<2x3x3xi64>
  %t = tg.trilu %e {upper = true, k = 1 : i64} : tensor<2x3x3xi64> -> tensor<2x3x3xi64>
  func.return %t : tensor<2x3x3xi64>
}

// -----

// fill is a constant in the stage; a one_hot compares the (normalized) index with the
// position along its new axis and selects on or off.
// CHECK-LABEL: func.func @k0_one_hot_fill_add(
// CHECK:         kernel.compute "one_hot_fill_add" %{{.*}}(i0 = 3, i1 = 4) : memref<3x4xf32> {
// CHECK:           %[[RAW:[a-z0-9_]+]] = affine.load %{{.*}}[%{{.*}}] : memref<3xi32>
// CHECK-NEXT:      %[[IDX:[a-z0-9_]+]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK:           %[[HIT:[a-z0-9_]+]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK:           %[[ON:[a-z0-9_]+]] = affine.load %{{.*}}[1] : memref<2xf32>
// CHECK-NEXT:      %[[OFF:[a-z0-9_]+]] = affine.load %{{.*}}[0] : memref<2xf32>
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = arith.select %[[HIT]], %[[ON]], %[[OFF]] : f32
// CHECK-NEXT:      %[[HALF:[a-z0-9_]+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %{{.*}} = arith.addf %[[V]], %[[HALF]] : f32
func.func @main(%i: tensor<3xi32>, %v: tensor<2xf32>) -> tensor<3x4xf32> {
  %h = tg.one_hot %i, %v {axis = 1 : i64, depth = 4 : i64} : (tensor<3xi32>, tensor<2xf32>) -> tensor<3x4xf32>
  %f = tg.fill {value = 0.5 : f32} : tensor<3x4xf32>
  %s = tg.add %h, %f : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %s : tensor<3x4xf32>
}
