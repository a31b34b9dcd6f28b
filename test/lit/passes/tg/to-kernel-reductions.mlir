// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s

// The reductions of passes/tg/lowering/reductions.py: each is a reduction stage (or a
// few) whose combiner, identity and terms carry the op's meaning.

// reduce_min on unsigned integers combines with umin from the largest value (all ones,
// printed signless as -1); a mean divides in the then region.
// CHECK-LABEL: func.func @k0_reduce_min(
// CHECK:         kernel.compute "reduce_min" %{{.*}}(o0 = 2) reduce(r0 = 3) combine "umin" init -1 : i16 : memref<2xi16> {
// CHECK:           affine.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x3xi16>
func.func @main(%x: tensor<2x3xui16>) -> tensor<2xui16> {
  %m = tg.reduce_min %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xui16> -> tensor<2xui16>
  func.return %m : tensor<2xui16>
}

// -----

// reduce_prod multiplies from 1; over no axes it is a copy (an element-wise stage).
// CHECK-LABEL: func.func @k0_reduce_prod(
// CHECK:         kernel.compute "reduce_prod" %{{.*}}(o0 = 1, o1 = 3) reduce(r0 = 2) combine "mul" init 1.000000e+00 : f32
// CHECK-LABEL: func.func @k1_reduce_prod(
// CHECK:         kernel.compute "reduce_prod" %{{.*}}(i0 = 2, i1 = 3) : memref<2x3xf32> {
// CHECK-NOT:     combine
func.func @main(%x: tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<2x3xf32>) {
  %p = tg.reduce_prod %x {axes = array<i64: 0>, keepdims = true} : tensor<2x3xf32> -> tensor<1x3xf32>
  %q = tg.reduce_prod %x {axes = array<i64>, keepdims = true} : tensor<2x3xf32> -> tensor<2x3xf32>
  func.return %p, %q : tensor<1x3xf32>, tensor<2x3xf32>
}

// -----

// arg_max: the max along the axis into a temporary, then the largest position holding
// it (select_last_index: combine max from -1); NaN counts as the max (cmpf uno).
// CHECK-LABEL: func.func @k0_arg_max(
// CHECK:         %[[EXT:[a-z0-9_]+]] = memref.alloc() : memref<2x1xf32>
// CHECK-NEXT:    kernel.compute "arg_extreme" %[[EXT]](o0 = 2, o1 = 1) reduce(r0 = 3) combine "max" init 0xff800000 : f32
// CHECK:         kernel.compute "arg_max2" %{{.*}}(o0 = 2, o1 = 1) reduce(r = 3) combine "max" init -1 : i64 : memref<2x1xi64> {
// CHECK:           %[[V:[a-z0-9_]+]] = affine.load %{{.*}}[%{{.*}}, %[[R:[a-z0-9_]+]]] : memref<2x3xf32>
// CHECK-NEXT:      %[[M:[a-z0-9_]+]] = affine.load %[[EXT]][%{{.*}}, 0] : memref<2x1xf32>
// CHECK-NEXT:      %[[EQ:[a-z0-9_]+]] = arith.cmpf oeq, %[[V]], %[[M]] : f32
// CHECK-NEXT:      %[[NAN:[a-z0-9_]+]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT:      %[[HIT:[a-z0-9_]+]] = arith.ori %[[EQ]], %[[NAN]] : i1
// CHECK:           %[[POS:[a-z0-9_]+]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT:      %[[NONE:[a-z0-9_]+]] = arith.constant -1 : i64
// CHECK-NEXT:      arith.select %[[HIT]], %[[POS]], %[[NONE]] : i64
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x1xi64> {
  %i = tg.arg_max %x {axis = 1 : i64, keepdims = true, select_last_index = true} : tensor<2x3xf32> -> tensor<2x1xi64>
  func.return %i : tensor<2x1xi64>
}

// -----

// cumsum: element o0 sums every r of the axis with r < o0 (exclusive), the identity
// elsewhere.
// CHECK-LABEL: func.func @k0_cumsum(
// CHECK:         kernel.compute "cumsum" %{{.*}}(o0 = 4) reduce(r = 4) combine "add" init 0 : i32 : memref<4xi32> {
// CHECK-NEXT:    ^bb0(%[[O:[a-z0-9_]+]]: index, %[[R:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[RI:[a-z0-9_]+]] = affine.apply affine_map<(d0, d1) -> (d1)> (%[[O]], %[[R]])
// CHECK-NEXT:      %[[OI:[a-z0-9_]+]] = affine.apply affine_map<(d0, d1) -> (d0)> (%[[O]], %[[R]])
// CHECK-NEXT:      %[[TAKEN:[a-z0-9_]+]] = arith.cmpi slt, %[[RI]], %[[OI]] : index
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = affine.load %{{.*}}[%[[R]]] : memref<4xi32>
// CHECK-NEXT:      %[[ZERO:[a-z0-9_]+]] = arith.constant 0 : i32
// CHECK-NEXT:      arith.select %[[TAKEN]], %[[V]], %[[ZERO]] : i32
func.func @main(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = tg.cumsum %x {axis = 0 : i64, exclusive = true} : tensor<4xi32>
  func.return %c : tensor<4xi32>
}

// -----

// cumprod reverse: r >= o0, multiplied from 1.
// CHECK-LABEL: func.func @k0_cumprod(
// CHECK:         kernel.compute "cumprod" %{{.*}}(o0 = 2, o1 = 3) reduce(r = 2) combine "mul" init 1.000000e+00 : f64
// CHECK:           arith.cmpi sge, %{{.*}}, %{{.*}} : index
func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %c = tg.cumprod %x {axis = 0 : i64, reverse = true} : tensor<2x3xf64>
  func.return %c : tensor<2x3xf64>
}

// -----

// top_k: ranks (how many elements order before each: larger, or equal at a lower
// position; unsigned compares), the position of rank j for each output j, and a gather.
// CHECK-LABEL: func.func @k0_top_k(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<5xi8>, %[[VALS:[a-z0-9_]+]]: memref<2xi8>, %[[IDX:[a-z0-9_]+]]: memref<2xi64>)
// CHECK:         %[[RANK:[a-z0-9_]+]] = memref.alloc() : memref<5xi64>
// CHECK-NEXT:    kernel.compute "top_k_rank" %[[RANK]](o0 = 5) reduce(r = 5) combine "add" init 0 : i64
// CHECK:           %[[FIRST:[a-z0-9_]+]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[A:[a-z0-9_]+]] = affine.load %[[X]][%{{.*}}] : memref<5xi8>
// CHECK-NEXT:      %[[C:[a-z0-9_]+]] = affine.load %[[X]][%{{.*}}] : memref<5xi8>
// CHECK-NEXT:      %[[GT:[a-z0-9_]+]] = arith.cmpi ugt, %[[A]], %[[C]] : i8
// CHECK-NEXT:      %[[EQ:[a-z0-9_]+]] = arith.cmpi eq, %[[A]], %[[C]] : i8
// CHECK-NEXT:      %[[TIE:[a-z0-9_]+]] = arith.andi %[[EQ]], %[[FIRST]] : i1
// CHECK-NEXT:      arith.ori %[[GT]], %[[TIE]] : i1
// CHECK:         kernel.compute "top_k_indices2" %[[IDX]](o0 = 2) reduce(r = 5) combine "add" init 0 : i64
// CHECK:           affine.load %[[RANK]][%{{.*}}] : memref<5xi64>
// CHECK:         kernel.compute "top_k_values3" %[[VALS]](i0 = 2) : memref<2xi8> {
// CHECK-NEXT:    ^bb0(%[[I:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[J:[a-z0-9_]+]] = affine.load %[[IDX]][%[[I]]] : memref<2xi64>
// CHECK-NEXT:      %[[JI:[a-z0-9_]+]] = arith.index_cast %[[J]] : i64 to index
// CHECK-NEXT:      memref.load %[[X]][%[[JI]]] : memref<5xi8>
func.func @main(%x: tensor<5xui8>) -> (tensor<2xui8>, tensor<2xi64>) {
  %v, %i = tg.top_k %x {k = 2 : i64, axis = 0 : i64} : tensor<5xui8> -> tensor<2xui8>, tensor<2xi64>
  func.return %v, %i : tensor<2xui8>, tensor<2xi64>
}

// -----

// top_k smallest on floats: NaN orders after every number (a < c, or c is NaN and a is not).
// CHECK-LABEL: func.func @k0_top_k(
// CHECK:         kernel.compute "top_k_rank"
// CHECK:           %[[AN:[a-z0-9_]+]] = arith.cmpf uno, %[[A:[a-z0-9_]+]], %[[A]] : f32
// CHECK-NEXT:      %[[CN:[a-z0-9_]+]] = arith.cmpf uno, %[[C:[a-z0-9_]+]], %[[C]] : f32
// CHECK-NEXT:      %[[AO:[a-z0-9_]+]] = arith.cmpf ord, %[[A]], %[[A]] : f32
// CHECK-NEXT:      %{{.*}} = arith.cmpf ord, %[[C]], %[[C]] : f32
// CHECK-NEXT:      %[[LT:[a-z0-9_]+]] = arith.cmpf olt, %[[A]], %[[C]] : f32
// CHECK-NEXT:      %[[NANC:[a-z0-9_]+]] = arith.andi %[[CN]], %[[AO]] : i1
// CHECK-NEXT:      arith.ori %[[LT]], %[[NANC]] : i1
func.func @main(%x: tensor<3x4xf32>) -> (tensor<3x1xf32>, tensor<3x1xi64>) {
  %v, %i = tg.top_k %x {k = 1 : i64, axis = 1 : i64, largest = false} : tensor<3x4xf32> -> tensor<3x1xf32>, tensor<3x1xi64>
  func.return %v, %i : tensor<3x1xf32>, tensor<3x1xi64>
}
