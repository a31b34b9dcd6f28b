// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=512}' --split-input-file | filecheck %s --check-prefix=AVX512
// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=256}' --split-input-file | filecheck %s --check-prefix=AVX2

// The register tile follows the vector unit (register_tile.py). A 1x1 convolution in
// NCHW16c: the vector axis (mi, 16 channels) is one 512-bit vector, so the tile's columns
// are output-channel blocks (mo), which the broadcast input does not read: each input
// element feeds one FMA per block. With 32 zmm registers: 14 pixels x 2 blocks (28
// accumulators + 2 weight vectors + broadcasts). With 16 ymm registers the 16 channels are
// two vectors, a column is a whole block of them, and the tile is 4 pixels x 1 block of 2
// vectors (8 accumulators, latency x throughput of two 4-cycle FMA pipes), which fits where
// 14 rows of zmm pairs spilled. The input (800 KiB) does not stay cached between output
// blocks, the weights (4 KiB) do: the pixel tiles go outside (the parallel rows), the
// blocks inside. (The reduction, 64 channels, is small enough for one pass: no split-K.)
// AVX512-LABEL: func.func @pointwise__s0(
// AVX512-SAME:    kernel.schedule = "oh/1x56:parallel n/1x1 ow/14x4 mo/2x2 mi/16x1 |acc| co/1x4 ci/1x16 ow/1x14:unroll mo/1x2:unroll mi/1x16:vector"
// AVX2-LABEL: func.func @pointwise__s0(
// AVX2-SAME:    kernel.schedule = "oh/1x56:parallel n/1x1 ow/4x14 mo/1x4 mi/16x1 |acc| co/1x4 ci/1x16 ow/1x4:unroll mi/8x2:unroll mi/1x8:vector"
func.func @pointwise(%x: memref<1x4x56x56x16xf32>, %w: memref<4x4x16x16xf32>, %y: memref<1x4x56x56x16xf32>) attributes {kernel.kernel} {
  kernel.compute "conv" %y(n = 1, mo = 4, oh = 56, ow = 56, mi = 16) reduce(co = 4, ci = 16) combine "add" init 0.000000e+00 : f32 : memref<1x4x56x56x16xf32> {
  ^bb0(%n: index, %mo: index, %oh: index, %ow: index, %mi: index, %co: index, %ci: index):
    %a = affine.load %x[0, %co, %oh, %ow, %ci] : memref<1x4x56x56x16xf32>
    %b = affine.load %w[%mo, %co, %ci, %mi] : memref<4x4x16x16xf32>
    %p = arith.mulf %a, %b : f32
    kernel.yield %p : f32
  }
  func.return
}

// -----

// A matrix product whose rows are few (a decoder's 6 tokens): 6 rows by 4 vectors of its
// 64 columns (24 accumulators), each broadcast of a row's element feeding four FMAs.
// AVX512-LABEL: func.func @six_rows__s0(
// AVX512-SAME:    kernel.schedule = "i/6x1 j/64x1 |acc| k/1x128 i/1x6:unroll j/16x4:unroll j/1x16:vector"
func.func @six_rows(%a: memref<6x128xf32>, %b: memref<128x64xf32>, %c: memref<6x64xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 6, j = 64) reduce(k = 128) combine "add" init 0.000000e+00 : f32 : memref<6x64xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<6x128xf32>
    %y = affine.load %b[%k, %j] : memref<128x64xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
