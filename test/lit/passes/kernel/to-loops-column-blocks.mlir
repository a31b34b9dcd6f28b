// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=512}' --split-input-file | filecheck %s

// Few rows against many column blocks (a transformer's 32 tokens through a dense layer): the
// rows' operand (32 x 64 floats, 8 KiB) fits in cache, so the column blocks go outside the
// row tiles and are the parallel loop: each thread reads its own columns of the weights once,
// and every row tile reuses them from cache. The register tile is 8 rows by two vectors (16
// accumulators, 2 vector and 8 broadcast loads per step; register_tile.py).
// CHECK-LABEL: func.func @few_rows__s0(
// CHECK-SAME:    kernel.schedule = "j/32x8:parallel i/8x4 |acc| k/1x64 i/1x8:unroll j/16x2:unroll j/1x16:vector"
func.func @few_rows(%a: memref<32x64xf32>, %b: memref<64x256xf32>, %c: memref<32x256xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 32, j = 256) reduce(k = 64) combine "add" init 0.000000e+00 : f32 : memref<32x256xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<32x64xf32>
    %y = affine.load %b[%k, %j] : memref<64x256xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}

// -----

// Neither operand fits (rows 32 x 4096 floats, 512 KiB; weights 4 MiB): the one re-read
// less goes inside. Column tiles outside re-read the rows 8 times (4 MiB in all), row
// tiles outside would stream the weights 4 times (16 MiB): columns outside.
// CHECK-LABEL: func.func @long_rows__s0(
// CHECK-SAME:    kernel.schedule = "j/32x8:parallel i/8x4 |acc| k/1x4096 i/1x8:unroll j/16x2:unroll j/1x16:vector"
func.func @long_rows(%a: memref<32x4096xf32>, %b: memref<4096x256xf32>, %c: memref<32x256xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 32, j = 256) reduce(k = 4096) combine "add" init 0.000000e+00 : f32 : memref<32x256xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<32x4096xf32>
    %y = affine.load %b[%k, %j] : memref<4096x256xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}

// -----

// Many rows (4096 x 64 floats, 1 MiB) against weights that fit (64 x 64, 16 KiB): the row
// tiles go outside and the rows stream once, each tile reusing the cached weights.
// CHECK-LABEL: func.func @many_rows__s0(
// CHECK-SAME:    kernel.schedule = "i/8x512:parallel j/32x2 |acc| k/1x64 i/1x8:unroll j/16x2:unroll j/1x16:vector"
func.func @many_rows(%a: memref<4096x64xf32>, %b: memref<64x64xf32>, %c: memref<4096x64xf32>) attributes {kernel.kernel} {
  kernel.compute "matmul" %c(i = 4096, j = 64) reduce(k = 64) combine "add" init 0.000000e+00 : f32 : memref<4096x64xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %x = affine.load %a[%i, %k] : memref<4096x64xf32>
    %y = affine.load %b[%k, %j] : memref<64x64xf32>
    %p = arith.mulf %x, %y : f32
    kernel.yield %p : f32
  }
  func.return
}
