// RUN: %tessel-opt %s -p kernel-simplify-indices | filecheck %s
// RUN: %tessel-opt %s -p kernel-simplify-indices,kernel-to-loops | filecheck %s --check-prefix=LOOPS

// kernel-simplify-indices takes apart the floordiv / mod towers that composed data movement
// leaves in index maps, using the ranges of the compute's own axes.

// Attention's head split (ViT-S: 197 tokens, 6 heads of 64) as tg-to-kernel composes it from
// reshape -> transpose -> reshape: on the domain the token index is i2 and the feature index
// i1 * 64 + i3, so the load is contiguous in i3 and becomes one vector load.
// CHECK-LABEL: func.func @heads(
// CHECK:         kernel.load %{{.*}}[%i2, %i3 + %i1 * 64] pad 0.000000e+00 : f32 : memref<197x384xf32>
// LOOPS-LABEL: func.func @heads__s0(
// LOOPS-NOT:     arith.floordivsi
// LOOPS:         vector.load %{{.*}} : memref<197x384xf32>, vector<16xf32>
func.func @heads(%x: memref<197x384xf32>, %y: memref<1x6x197x64xf32>) attributes {kernel.kernel} {
  kernel.compute "heads" %y(i0 = 1, i1 = 6, i2 = 197, i3 = 64) : memref<1x6x197x64xf32> {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %v = "kernel.load"(%x, %i0, %i1, %i2, %i3) <{map = affine_map<(d0, d1, d2, d3) -> (((((d3 mod 64) + ((((d3 + d2 * 64 + d1 * 12608 + d0 * 75648) floordiv 12608) mod 6) * 64) + ((((d3 + d2 * 64 + d1 * 12608 + d0 * 75648) floordiv 64) mod 197) * 384)) floordiv 384) mod 197), ((((d3 mod 64) + ((((d3 + d2 * 64 + d1 * 12608 + d0 * 75648) floordiv 12608) mod 6) * 64) + ((((d3 + d2 * 64 + d1 * 12608 + d0 * 75648) floordiv 64) mod 197) * 384))) mod 384))>, pad = 0.000000e+00 : f32, operandSegmentSizes = array<i32: 1, 4, 0>}> : (memref<197x384xf32>, index, index, index, index) -> f32
    kernel.yield %v : f32
  }
  func.return
}

// What the ranges do not decide stays: i1 + 3 may reach 7 (past 6), so its mod remains; and
// a remainder that spans two multiples ((i0 * 2 + i1) floordiv 3, i1 < 4) is left as it is.
// CHECK-LABEL: func.func @kept(
// CHECK:         affine.load %{{.*}}[(%i1 + 3) mod 6, (%i0 * 2 + %i1) floordiv 3]
func.func @kept(%x: memref<6x8xf32>, %y: memref<4x4xf32>) attributes {kernel.kernel} {
  kernel.compute "kept" %y(i0 = 4, i1 = 4) : memref<4x4xf32> {
  ^bb0(%i0: index, %i1: index):
    %v = affine.load %x[(%i1 + 3) mod 6, (%i0 * 2 + %i1) floordiv 3] : memref<6x8xf32>
    kernel.yield %v : f32
  }
  func.return
}

// affine.apply too, and a constant part: (i0 * 16 + i1 + 35) floordiv 16 with i1 < 16 is
// i0 + 2 plus whether i1 + 3 reaches 16, which the range [3, 18] does not decide (the
// multiples of 16 leave the division); with the constant 32 it is i0 + 2 exactly, and the
// mod is i1.
// CHECK-LABEL: func.func @apply(
// CHECK:         affine.apply affine_map<(d0, d1) -> (((d0 + ((d1 + 3) floordiv 16)) + 2))>
// CHECK:         affine.apply affine_map<(d0, d1) -> ((d0 + 2))>
// CHECK:         affine.apply affine_map<(d0, d1) -> (d1)>
func.func @apply(%x: memref<16xf32>, %y: memref<2x16xf32>) attributes {kernel.kernel} {
  kernel.compute "apply" %y(i0 = 2, i1 = 16) : memref<2x16xf32> {
  ^bb0(%i0: index, %i1: index):
    %a = affine.apply affine_map<(d0, d1) -> ((d0 * 16 + d1 + 35) floordiv 16)> (%i0, %i1)
    %b = affine.apply affine_map<(d0, d1) -> ((d0 * 16 + d1 + 32) floordiv 16)> (%i0, %i1)
    %c = affine.apply affine_map<(d0, d1) -> ((d0 * 16 + d1 + 32) mod 16)> (%i0, %i1)
    %v = affine.load %x[%c] : memref<16xf32>
    kernel.yield %v : f32
  }
  func.return
}

// ShuffleNet's channel shuffle (116 channels of 28x28 in two groups): the flat index
// divided by two planes (1568) is the channel divided by two, since h * 28 + w stays below
// one plane; the load is then contiguous in w.
// CHECK-LABEL: func.func @shuffle(
// CHECK:         kernel.load %{{.*}}[0, %i1 floordiv 2 + %i1 mod 2 * 58, %i2, %i3]
// LOOPS-LABEL: func.func @shuffle__s0(
// LOOPS-NOT:     arith.floordivsi %{{.*}}, %c1568
// LOOPS:         vector.load %{{.*}} : memref<1x116x28x28xf32>
func.func @shuffle(%x: memref<1x116x28x28xf32>, %y: memref<1x116x28x28xf32>) attributes {kernel.kernel} {
  kernel.compute "shuffle" %y(i0 = 1, i1 = 116, i2 = 28, i3 = 28) : memref<1x116x28x28xf32> {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %v = "kernel.load"(%x, %i0, %i1, %i2, %i3) <{map = affine_map<(d0, d1, d2, d3) -> (0, (((d3 + (d2 * 28)) + (d1 * 784) + (d0 * 90944)) floordiv 1568) + ((d1 mod 2) * 58), d2, d3)>, pad = 0.000000e+00 : f32, operandSegmentSizes = array<i32: 1, 4, 0>}> : (memref<1x116x28x28xf32>, index, index, index, index) -> f32
    kernel.yield %v : f32
  }
  func.return
}
