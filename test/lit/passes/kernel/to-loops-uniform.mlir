// RUN: %tessel-opt %s -p tg-fuse,tg-plan-memory,tg-to-kernel,'kernel-to-loops{vector_bits=512}' --split-input-file | filecheck %s

// What is the same for all 16 channel lanes stays scalar: a blocked average pool's tap
// count (index arithmetic of the spatial axes, though its affine.apply takes every axis),
// and a blocked concat's choice of piece (a compare of the block index), which selects
// whole vectors with one scalar i1 (no compare, select, extract or insert per lane).
// CHECK-LABEL: func.func @k0_avg_pool2d__s0(
// CHECK-NOT:     vector.extract
// CHECK-NOT:     vector.insert
// CHECK:         arith.divf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-LABEL: func.func @k0_avg_pool2d(
func.func @pool(%x: tensor<1x2x8x8x16xf32>) -> tensor<1x2x4x4x16xf32> {
  %a = tg.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false, layout = "NCHW16c"} : (tensor<1x2x8x8x16xf32>) -> tensor<1x2x4x4x16xf32>
  func.return %a : tensor<1x2x4x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @k0_concat__s0(
// CHECK-NOT:     vector.extract
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT:     vector.insert
// CHECK-LABEL: func.func @k0_concat(
func.func @concat(%a: tensor<1x2x4x4x16xf32>, %b: tensor<1x1x4x4x16xf32>) -> tensor<1x3x4x4x16xf32> {
  %c = tg.concat %a, %b {axis = 1 : i64} : (tensor<1x2x4x4x16xf32>, tensor<1x1x4x4x16xf32>) -> tensor<1x3x4x4x16xf32>
  func.return %c : tensor<1x3x4x4x16xf32>
}

// -----

// What differs per lane is computed on vectors: a log-softmax's sum of exp(x - max) over
// rows of 100, reduced 16 lanes at a time (an rfactor: 7 steps of 16 cover 112), selects 0
// for the lanes past the row's end (its term is an exponential, not a load that could pad
// with 0 itself, as the row max's does). The lane positions are the row offset plus [0, 1,
// ..., 15], compared and selected as vectors (xDSL's arith has scalar compares and selects
// only: the first version built each mask lane by lane, 16 extracts, compares, selects and
// inserts per vector).
// CHECK-LABEL: func.func @k0_log_softmax__s2(
// CHECK-NOT:     vector.extract
// CHECK:         arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
// CHECK:         arith.cmpi slt, %{{.*}}, %{{.*}} : vector<16xindex>
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xi1>, vector<16xf32>
// CHECK-NOT:     vector.insert
// CHECK-LABEL: func.func @k0_log_softmax__s3(
func.func @log_softmax(%x: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %y = tg.log_softmax %x {axis = 1 : i64} : tensor<8x100xf32>
  func.return %y : tensor<8x100xf32>
}
