// RUN: %tessel-opt %s -p 'kernel-to-loops' | filecheck %s --check-prefix=ZEN4
// RUN: %tessel-opt %s -p 'kernel-to-loops{l1_bytes=32768 l2_bytes=1048576}' | filecheck %s --check-prefix=ZEN4
// RUN: %tessel-opt %s -p 'kernel-to-loops{l1_bytes=32768 l2_bytes=524288}' | filecheck %s --check-prefix=ZEN4
// RUN: %tessel-opt %s -p 'kernel-to-loops{l1_bytes=49152 l2_bytes=2097152}' | filecheck %s --check-prefix=EMR

// The cache tiles follow the core's L2 (cache_tiles.py, order_tiles): a 1x1 convolution
// of 28 x 28 pixels x 128 channels (401 KB, the broadcast operand) to 256 channels (128 KB
// of weights, the vectors). A Zen 4's 1 MB L2 (the default) keeps a quarter, 256 KB (a
// Zen 3's 512 KB the same: cache_tiles.REUSE_FLOOR): the weights fit, the pixels do not, so each row of pixels is
// read once, outermost and split among the threads, and the weights are re-read from L2
// for every row. An Emerald Rapids' 2 MB keeps 512 KB: both fit, and the output-channel
// blocks go outside (the threads split the weights), as cpu_target.CACHES gives for
// `--mcpu emeraldrapids` and the kernel's sysfs for such a host.
// ZEN4-LABEL: func.func @pointwise__s0(
// ZEN4-SAME:    kernel.schedule = "oh/1x28:parallel n/1x1 ow/14x2 mo/2x8 mi/16x1 |acc| co/1x8 ci/1x16 ow/1x14:unroll mo/1x2:unroll mi/1x16:vector"
// EMR-LABEL:  func.func @pointwise__s0(
// EMR-SAME:     kernel.schedule = "mo/2x8:parallel n/1x1 oh/1x28 ow/14x2 mi/16x1 |acc| co/1x8 ci/1x16 ow/1x14:unroll mo/1x2:unroll mi/1x16:vector"
func.func @pointwise(%x: memref<1x8x28x28x16xf32>, %w: memref<16x8x16x16xf32>, %y: memref<1x16x28x28x16xf32>) attributes {kernel.kernel} {
  kernel.compute "conv" %y(n = 1, mo = 16, oh = 28, ow = 28, mi = 16) reduce(co = 8, ci = 16) combine "add" init 0.000000e+00 : f32 : memref<1x16x28x28x16xf32> {
  ^bb0(%n: index, %mo: index, %oh: index, %ow: index, %mi: index, %co: index, %ci: index):
    %a = affine.load %x[0, %co, %oh, %ow, %ci] : memref<1x8x28x28x16xf32>
    %v = affine.load %w[%mo, %co, %ci, %mi] : memref<16x8x16x16xf32>
    %p = arith.mulf %a, %v : f32
    kernel.yield %p : f32
  }
  func.return
}
