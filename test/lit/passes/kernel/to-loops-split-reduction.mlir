// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=256}' --split-input-file | filecheck %s --check-prefix=AVX2
// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=512}' --split-input-file | filecheck %s --check-prefix=AVX512

// Split-K (cache_tiles.py, split_reduction): a 1x1 convolution over 1024 channels. One tile's
// reduction would read 14 pixels' 1024 channels and the weights of its blocks (88 KiB on
// AVX2), streamed from L2 for every tile; in chunks of 4 input blocks (64 channels, 8.5 KiB)
// the chunk loop goes outside every tile, just inside the parallel one. On AVX2 the tile is
// 2 pixels x 2 output blocks of 2 vectors (each broadcast feeds 4 FMAs, where a 14 x 1
// tile's broadcast fed one). AVX-512's tile, 14 pixels x 2 blocks of one vector, does 28
// FMAs a step on 2 weight vectors: one pass (split-K is for 16-register targets).
// AVX2-LABEL: func.func @pointwise__s0(
// AVX2-SAME:    kernel.schedule = "mo/2x32:parallel co/4x16 n/1x1 oh/1x14 ow/2x7 mi/16x1 |acc| co/1x4 ci/1x16 ow/1x2:unroll mo/1x2:unroll mi/8x2:unroll mi/1x8:vector"
// The first chunk starts from zero, later ones from the output's partial sums:
// AVX2:         %[[FIRST:.*]] = arith.cmpi eq, %co, %{{.*}} : index
// AVX2:         %[[LAST:.*]] = arith.cmpi eq, %co, %{{.*}} : index
// AVX2:         %[[SUMS:.*]] = vector.load %y[{{.*}}] : memref<1x64x14x14x16xf32>, vector<8xf32>
// AVX2-NEXT:    arith.select %[[FIRST]], %{{.*}}, %[[SUMS]] : vector<8xf32>
// and only the last one adds the bias and applies the ReLU:
// AVX2:         %[[RELU:.*]] = arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// AVX2-NEXT:    %[[OUT:.*]] = arith.select %[[LAST]], %[[RELU]], %{{.*}} : vector<8xf32>
// AVX2-NEXT:    vector.store %[[OUT]], %y[{{.*}}] : memref<1x64x14x14x16xf32>, vector<8xf32>
// AVX512-LABEL: func.func @pointwise__s0(
// AVX512-SAME:    kernel.schedule = "mo/2x32:parallel n/1x1 oh/1x14 ow/14x1 mi/16x1 |acc| co/1x64 ci/1x16 ow/1x14:unroll mo/1x2:unroll mi/1x16:vector"
// AVX512-NOT:     arith.select
func.func @pointwise(%x: memref<1x64x14x14x16xf32>, %w: memref<64x64x16x16xf32>, %b: memref<1024xf32>, %y: memref<1x64x14x14x16xf32>) attributes {kernel.kernel} {
  kernel.compute "conv" %y(n = 1, mo = 64, oh = 14, ow = 14, mi = 16) reduce(co = 64, ci = 16) combine "add" init 0.000000e+00 : f32 : memref<1x64x14x14x16xf32> {
  ^bb0(%n: index, %mo: index, %oh: index, %ow: index, %mi: index, %co: index, %ci: index):
    %a = affine.load %x[0, %co, %oh, %ow, %ci] : memref<1x64x14x14x16xf32>
    %v = affine.load %w[%mo, %co, %ci, %mi] : memref<64x64x16x16xf32>
    %p = arith.mulf %a, %v : f32
    kernel.yield %p : f32
  } then {
  ^bb0(%n1: index, %mo1: index, %oh1: index, %ow1: index, %mi1: index, %acc: f32):
    %c = affine.load %b[%mo1 * 16 + %mi1] : memref<1024xf32>
    %s = arith.addf %acc, %c : f32
    %z = arith.constant 0.000000e+00 : f32
    %r = arith.maximumf %s, %z : f32
    kernel.yield %r : f32
  }
  func.return
}

// -----

// 64 input channels: one tile's reduction (4.5 KiB on AVX2) fits, one pass, no chunk loop.
// (Its 2 pairs of output blocks would be 2 chunks for the threads: the 14 rows are the
// parallel loop instead, schedule.parallel_loop.)
// AVX2-LABEL: func.func @small__s0(
// AVX2-SAME:    kernel.schedule = "oh/1x14:parallel n/1x1 mo/2x2 ow/2x7 mi/16x1 |acc| co/1x4 ci/1x16 ow/1x2:unroll mo/1x2:unroll mi/8x2:unroll mi/1x8:vector"
// AVX2-NOT:     arith.select
// AVX512-LABEL: func.func @small__s0(
// AVX512-NOT:   arith.select
func.func @small(%x: memref<1x4x14x14x16xf32>, %w: memref<4x4x16x16xf32>, %y: memref<1x4x14x14x16xf32>) attributes {kernel.kernel} {
  kernel.compute "conv" %y(n = 1, mo = 4, oh = 14, ow = 14, mi = 16) reduce(co = 4, ci = 16) combine "add" init 0.000000e+00 : f32 : memref<1x4x14x14x16xf32> {
  ^bb0(%n: index, %mo: index, %oh: index, %ow: index, %mi: index, %co: index, %ci: index):
    %a = affine.load %x[0, %co, %oh, %ow, %ci] : memref<1x4x14x14x16xf32>
    %v = affine.load %w[%mo, %co, %ci, %mi] : memref<4x4x16x16xf32>
    %p = arith.mulf %a, %v : f32
    kernel.yield %p : f32
  }
  func.return
}

// -----

// Written as sched IR: the reduction's outer loop reordered outside cache_write's loop.
// AVX2-LABEL: func.func @k0_matmul__s0(
// AVX2-SAME:    kernel.schedule = "k/8x8 i/1x6 j/8x3 |acc| k/1x8 j/1x8:vector"
// AVX2:         arith.select
// AVX512-LABEL: func.func @k0_matmul__s0(
func.func @k0_matmul(%a: memref<6x64xf32>, %b: memref<64x24xf32>, %c: memref<6x24xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 24) reduce(k = 64) combine "add" init 0.000000e+00 : f32 : memref<6x24xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x64xf32>
    %y = affine.load %b[%k, %j] : memref<64x24xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
sched.stage "k0_matmul__s0" {
  %i, %j, %k = sched.axes ["i", "j", "k"]
  %k0, %k1 = sched.split %k by 8
  %j0, %j1 = sched.split %j by 8
  sched.reorder %k0, %i, %j0, %k1, %j1
  sched.cache_write at %j0
  sched.vectorize %j1
}

// -----

// A 7x7 map: 4-pixel row tiles, the last one clamped to end at column 7 (it recomputes
// column 3). With split-K that column's sums already hold this pass's chunk, stored by
// the tile before, so the clamped tile stores only the columns it owns (those at or past
// where it would have started unclamped).
// AVX2-LABEL: func.func @seven__s0(
// AVX2-SAME:    kernel.schedule = "mo/1x4:parallel co/8x8 n/1x1 oh/1x7 ow/4x2:clamp mi/16x1 |acc| co/1x8 ci/1x16 ow/1x4:unroll mi/8x2:unroll mi/1x8:vector"
// AVX2:         %[[START:.*]] = arith.muli %ow, %{{.*}} : index
// AVX2:         %[[OWNED:.*]] = arith.cmpi sge, %{{.*}}, %[[START]] : index
// AVX2-NEXT:    scf.if %[[OWNED]] {
// AVX2:           vector.store
func.func @seven(%x: memref<1x64x7x7x16xf32>, %w: memref<4x64x16x16xf32>, %y: memref<1x4x7x7x16xf32>) attributes {kernel.kernel} {
  kernel.compute "conv" %y(n = 1, mo = 4, oh = 7, ow = 7, mi = 16) reduce(co = 64, ci = 16) combine "add" init 0.000000e+00 : f32 : memref<1x4x7x7x16xf32> {
  ^bb0(%n: index, %mo: index, %oh: index, %ow: index, %mi: index, %co: index, %ci: index):
    %a = affine.load %x[0, %co, %oh, %ow, %ci] : memref<1x64x7x7x16xf32>
    %v = affine.load %w[%mo, %co, %ci, %mi] : memref<4x64x16x16xf32>
    %p = arith.mulf %a, %v : f32
    kernel.yield %p : f32
  }
  func.return
}
