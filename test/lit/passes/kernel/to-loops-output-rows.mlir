// RUN: %tessel-opt %s -p 'kernel-to-loops' --split-input-file | filecheck %s --check-prefix=L1M
// RUN: %tessel-opt %s -p 'kernel-to-loops{l2_bytes=16777216}' --split-input-file | filecheck %s --check-prefix=L16M

// A matrix product's output larger than the L2, its rows a page or more apart, is written
// row by row (cache_tiles.order_tiles, _streams_rows): Whisper's attention scores, 1500 x
// 1500 (9 MB) from queries 1500 x 64 and keys 64 x 1500 (384 KB each). By the operands
// alone the columns go outside (neither fits the L2's quarter; fewer column tiles), and
// each tile would write one vector into each of 14 rows 6000 bytes apart, a store miss per
// row that no prefetcher follows. With the rows outside (the keys re-read from L2 for each
// row tile) every row is written front to back: 11.46 -> 8.7 ms for the six heads
// (tessel-tune's measurements, Zen 4). With a 16 MB L2 the output fits, the columns stay.
// L1M-LABEL: func.func @scores__s0(
// L1M-SAME:    kernel.schedule = "i/14x108:parallel:clamp j/16x94:clamp |acc| k/1x64 i/1x14:unroll j/1x16:vector"
// L16M-LABEL: func.func @scores__s0(
// L16M-SAME:    kernel.schedule = "j/16x94:parallel:clamp i/14x108:clamp |acc| k/1x64 i/1x14:unroll j/1x16:vector"
func.func @scores(%q: memref<1500x64xf32>, %k: memref<64x1500xf32>, %s: memref<1500x1500xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %s(i = 1500, j = 1500) reduce(k = 64) combine "add" init 0.000000e+00 : f32 : memref<1500x1500xf32> {
  ^bb0(%i: index, %j: index, %r: index):
    %a = affine.load %q[%i, %r] : memref<1500x64xf32>
    %b = affine.load %k[%r, %j] : memref<64x1500xf32>
    %p = arith.mulf %a, %b : f32
    kernel.yield %p : f32
  }
  func.return
}

// -----

// Rows 4000 bytes apart share pages with their neighbours (a prefetcher follows them):
// the operands decide, and the columns stay outside whatever the L2.
// L1M-LABEL: func.func @narrow__s0(
// L1M-SAME:    kernel.schedule = "j/16x63:parallel:clamp i/14x108:clamp |acc| k/1x128 i/1x14:unroll j/1x16:vector"
// L16M-LABEL: func.func @narrow__s0(
// L16M-SAME:    kernel.schedule = "j/16x63:parallel:clamp i/14x108:clamp |acc| k/1x128 i/1x14:unroll j/1x16:vector"
func.func @narrow(%q: memref<1500x128xf32>, %k: memref<128x1000xf32>, %s: memref<1500x1000xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %s(i = 1500, j = 1000) reduce(k = 128) combine "add" init 0.000000e+00 : f32 : memref<1500x1000xf32> {
  ^bb0(%i: index, %j: index, %r: index):
    %a = affine.load %q[%i, %r] : memref<1500x128xf32>
    %b = affine.load %k[%r, %j] : memref<128x1000xf32>
    %p = arith.mulf %a, %b : f32
    kernel.yield %p : f32
  }
  func.return
}
