// RUN: %tessel-opt %s -p tg-fuse,tg-plan-memory,tg-to-kernel --split-input-file | filecheck %s
// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s --check-prefix=NOPLAN

// tg-to-kernel is where the graph's meaning turns into index arithmetic: every fused
// group becomes a kernel function of kernel.compute stages, and @main becomes calls over
// memrefs. The checks pin what a wrong lowering would get wrong: the iteration domain
// (axis names and extents, which axes reduce), the combiner and its identity, the
// affine index of every load (broadcasts, transposes, reshapes, windows, padding), the
// epilogue in the then region, and how @main places buffers (arena views at the planned
// offsets, globals for weights and constants, calls in order, shared kernels).

// An element-wise chain is one stage with spatial axes only; its inputs are read at
// the stage's own index and the chain is inlined into one scalar expression.
// CHECK-LABEL: func.func @k0_relu_exp_neg(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x3xf32>, %[[Y:[a-z0-9_]+]]: memref<2x3xf32>) attributes {kernel.kernel} {
// CHECK-NEXT:    kernel.compute "relu_exp_neg" %[[Y]](i0 = 2, i1 = 3) : memref<2x3xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[A:[a-z0-9_]+]] = affine.load %[[X]][%[[I0]], %[[I1]]] : memref<2x3xf32>
// CHECK-NEXT:      %[[Z:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = arith.maximumf %[[A]], %[[Z]] : f32
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = math.exp %[[R]] : f32
// CHECK-NEXT:      %[[N:[a-z0-9_]+]] = arith.negf %[[E]] : f32
// CHECK-NEXT:      kernel.yield %[[N]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %x: memref<2x3xf32> {tg.element = f32}, %[[OUT:[a-z0-9_]+]]: memref<2x3xf32> {tg.output, tg.element = f32})
// CHECK:         func.call @k0_relu_exp_neg(%x, %[[OUT]]) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
// CHECK-NEXT:    func.return
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tg.relu %x : tensor<2x3xf32>
  %b = tg.exp %a : tensor<2x3xf32>
  %c = tg.neg %b : tensor<2x3xf32>
  func.return %c : tensor<2x3xf32>
}

// -----

// Broadcasting drops leading dims and reads size-1 dims at 0.
// CHECK-LABEL: func.func @k0_add_mul(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x8xf32>, %[[B:[a-z0-9_]+]]: memref<8xf32>, %[[C:[a-z0-9_]+]]: memref<2x1xf32>, %[[Y:[a-z0-9_]+]]: memref<2x8xf32>)
// CHECK-NEXT:    kernel.compute "add_mul" %[[Y]](i0 = 2, i1 = 8) : memref<2x8xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[XV:[a-z0-9_]+]] = affine.load %[[X]][%[[I0]], %[[I1]]] : memref<2x8xf32>
// CHECK-NEXT:      %[[BV:[a-z0-9_]+]] = affine.load %[[B]][%[[I1]]] : memref<8xf32>
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = arith.addf %[[XV]], %[[BV]] : f32
// CHECK-NEXT:      %[[CV:[a-z0-9_]+]] = affine.load %[[C]][%[[I0]], 0] : memref<2x1xf32>
// CHECK-NEXT:      %[[P:[a-z0-9_]+]] = arith.mulf %[[S]], %[[CV]] : f32
// CHECK-NEXT:      kernel.yield %[[P]] : f32
func.func @main(%x: tensor<2x8xf32>, %b: tensor<8xf32>, %c: tensor<2x1xf32>) -> tensor<2x8xf32> {
  %a = tg.add %x, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %m = tg.mul %a, %c : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %m : tensor<2x8xf32>
}

// -----

// Data movement is index remapping, no copy: out[i0, i1] = r[i1, i0] (transpose) and
// r[a, b] = x at flat position 4a + b (reshape 2x3x4 -> 6x4), delinearized.
// CHECK-LABEL: func.func @k0_reshape_transpose(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x3x4xf32>, %[[Y:[a-z0-9_]+]]: memref<4x6xf32>)
// CHECK-NEXT:    kernel.compute "reshape_transpose" %[[Y]](i0 = 4, i1 = 6) : memref<4x6xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = affine.load %[[X]][(%[[I0]] + %[[I1]] * 4) floordiv 12 mod 2, (%[[I0]] + %[[I1]] * 4) floordiv 4 mod 3, (%[[I0]] + %[[I1]] * 4) floordiv 1 mod 4] : memref<2x3x4xf32>
// CHECK-NEXT:      kernel.yield %[[V]] : f32
func.func @main(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %r = tg.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %t = tg.transpose %r {perm = array<i64: 1, 0>} : tensor<6x4xf32> -> tensor<4x6xf32>
  func.return %t : tensor<4x6xf32>
}

// -----

// A padded convolution is two stages: `pad` copies the input into a zero-bordered
// temporary (the only place that reads out of bounds, through kernel.load ... pad), then
// the convolution reads the temporary without checks, accumulates over (c, kh, kw) with
// "add" from 0, and its then region holds the fused bias and relu. The temporary is
// freed at the end of the kernel.
// CHECK-LABEL: func.func @k0_conv2d_relu(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x3x8x8xf32>, %[[W:[a-z0-9_]+]]: memref<16x3x3x3xf32>, %[[B:[a-z0-9_]+]]: memref<16xf32>, %[[Y:[a-z0-9_]+]]: memref<1x16x8x8xf32>)
// CHECK-NEXT:    %[[P:[a-z0-9_]+]] = memref.alloc() : memref<1x3x10x10xf32>
// CHECK-NEXT:    kernel.compute "pad" %[[P]](i0 = 1, i1 = 3, i2 = 10, i3 = 10) : memref<1x3x10x10xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index, %[[I2:[a-z0-9_]+]]: index, %[[I3:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[XV:[a-z0-9_]+]] = kernel.load %[[X]][%[[I0]], %[[I1]], %[[I2]] + -1, %[[I3]] + -1] pad 0.000000e+00 : f32 : memref<1x3x8x8xf32>
// CHECK-NEXT:      kernel.yield %[[XV]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.compute "conv2" %[[Y]](o0 = 1, o1 = 16, o2 = 8, o3 = 8) reduce(c = 3, kh = 3, kw = 3) combine "add" init 0.000000e+00 : f32 : memref<1x16x8x8xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %[[O1:[a-z0-9_]+]]: index, %[[O2:[a-z0-9_]+]]: index, %[[O3:[a-z0-9_]+]]: index, %[[C:[a-z0-9_]+]]: index, %[[KH:[a-z0-9_]+]]: index, %[[KW:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[PV:[a-z0-9_]+]] = affine.load %[[P]][%[[O0]], %[[C]], %[[O2]] + %[[KH]], %[[O3]] + %[[KW]]] : memref<1x3x10x10xf32>
// CHECK-NEXT:      %[[WV:[a-z0-9_]+]] = affine.load %[[W]][%[[O1]], %[[C]], %[[KH]], %[[KW]]] : memref<16x3x3x3xf32>
// CHECK-NEXT:      %[[M:[a-z0-9_]+]] = arith.mulf %[[PV]], %[[WV]] : f32
// CHECK-NEXT:      kernel.yield %[[M]] : f32
// CHECK-NEXT:    } then {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %[[T1:[a-z0-9_]+]]: index, %{{.*}}: index, %{{.*}}: index, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT:      %[[BV:[a-z0-9_]+]] = affine.load %[[B]][%[[T1]]] : memref<16xf32>
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = arith.addf %[[ACC]], %[[BV]] : f32
// CHECK-NEXT:      %[[Z:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = arith.maximumf %[[S]], %[[Z]] : f32
// CHECK-NEXT:      kernel.yield %[[R]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[P]] : memref<1x3x10x10xf32>
// CHECK-NEXT:    func.return
//
// Without padding there is no pad stage; strides scale the output index.
// CHECK-LABEL: func.func @k1_conv2d(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x16x8x8xf32>, %[[W:[a-z0-9_]+]]: memref<4x16x1x1xf32>, %[[Y:[a-z0-9_]+]]: memref<1x4x4x4xf32>)
// CHECK-NEXT:    kernel.compute "conv" %[[Y]](o0 = 1, o1 = 4, o2 = 4, o3 = 4) reduce(c = 16, kh = 1, kw = 1) combine "add" init 0.000000e+00 : f32 : memref<1x4x4x4xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %[[O1:[a-z0-9_]+]]: index, %[[O2:[a-z0-9_]+]]: index, %[[O3:[a-z0-9_]+]]: index, %[[C:[a-z0-9_]+]]: index, %[[KH:[a-z0-9_]+]]: index, %[[KW:[a-z0-9_]+]]: index):
// CHECK-NEXT:      affine.load %[[X]][%[[O0]], %[[C]], %[[O2]] * 2 + %[[KH]], %[[O3]] * 2 + %[[KW]]] : memref<1x16x8x8xf32>
// CHECK:         } then {
// CHECK:           kernel.yield %[[ACC:[a-z0-9_]+]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %w = tg.weight @w : tensor<16x3x3x3xf32>
  %bias = tg.weight @bias : tensor<16xf32>
  %w2 = tg.weight @w2 : tensor<4x16x1x1xf32>
  %y = tg.conv2d %x, %w, %bias {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %r = tg.relu %y : tensor<1x16x8x8xf32>
  %z = tg.conv2d %r, %w2 {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<4x16x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %z : tensor<1x4x4x4xf32>
}

// -----

// Reductions: the reduced dims become reduction axes (r0, r1, ...) and are read from
// them; kept dims (keepdims) stay as extent-1 spatial axes. The combiner's identity is
// the init: 0 for a sum, -inf for a float max, 0 for an unsigned max (combine "umax":
// memrefs are signless, the tg.element attribute keeps the signedness). A mean divides
// in the then region.
// CHECK-LABEL: func.func @k0_reduce_sum(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x3x4xf32>, %[[Y:[a-z0-9_]+]]: memref<2x4xf32>)
// CHECK-NEXT:    kernel.compute "reduce_sum" %[[Y]](o0 = 2, o1 = 4) reduce(r0 = 3) combine "add" init 0.000000e+00 : f32 : memref<2x4xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %[[O1:[a-z0-9_]+]]: index, %[[R0:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = affine.load %[[X]][%[[O0]], %[[R0]], %[[O1]]] : memref<2x3x4xf32>
// CHECK-NEXT:      kernel.yield %[[V]] : f32
// CHECK-NEXT:    } then {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT:      kernel.yield %[[ACC]] : f32
// CHECK-NEXT:    }
// CHECK-LABEL: func.func @k1_reduce_max(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x3x4xf32>, %[[Y:[a-z0-9_]+]]: memref<2x1x1xf32>)
// CHECK-NEXT:    kernel.compute "reduce_max" %[[Y]](o0 = 2, o1 = 1, o2 = 1) reduce(r0 = 3, r1 = 4) combine "max" init 0xff800000 : f32 : memref<2x1x1xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %{{.*}}: index, %{{.*}}: index, %[[R0:[a-z0-9_]+]]: index, %[[R1:[a-z0-9_]+]]: index):
// CHECK-NEXT:      affine.load %[[X]][%[[O0]], %[[R0]], %[[R1]]] : memref<2x3x4xf32>
// CHECK-LABEL: func.func @k2_reduce_mean(
// CHECK:         kernel.compute "reduce_mean" %{{.*}}(o0 = 2, o1 = 4) reduce(r0 = 3) combine "add" init 0.000000e+00 : f32 : memref<2x4xf32> {
// CHECK:         } then {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT:      %[[N:[a-z0-9_]+]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:      %[[MEAN:[a-z0-9_]+]] = arith.divf %[[ACC]], %[[N]] : f32
// CHECK-NEXT:      kernel.yield %[[MEAN]] : f32
// CHECK-LABEL: func.func @k3_reduce_max(
// CHECK-SAME:    %{{.*}}: memref<4x6xi8>, %[[Y:[a-z0-9_]+]]: memref<4xi8>)
// CHECK-NEXT:    kernel.compute "reduce_max" %[[Y]](o0 = 4) reduce(r0 = 6) combine "umax" init 0 : i8 : memref<4xi8> {
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %u: memref<4x6xi8> {tg.element = ui8}
// CHECK-SAME:    %{{.*}}: memref<4xi8> {tg.output, tg.element = ui8})
func.func @main(%x: tensor<2x3x4xf32>, %u: tensor<4x6xui8>) -> (tensor<2x4xf32>, tensor<2x1x1xf32>, tensor<2x4xf32>, tensor<4xui8>) {
  %s = tg.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %m = tg.reduce_max %x {axes = array<i64: 1, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
  %a = tg.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %b = tg.reduce_max %u {axes = array<i64: 1>, keepdims = false} : tensor<4x6xui8> -> tensor<4xui8>
  func.return %s, %m, %a, %b : tensor<2x4xf32>, tensor<2x1x1xf32>, tensor<2x4xf32>, tensor<4xui8>
}

// -----

// Softmax (f32) is four stages over two temporaries with the axis kept as 1: the row max,
// exp(x - max) into the output, its sum, then the output scaled in place by 1 / sum (one
// exponential per element). Stage names get a counter from the second stage of a kernel
// on, so that they are unique.
// CHECK-LABEL: func.func @k0_softmax(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x10xf32>, %[[Y:[a-z0-9_]+]]: memref<2x10xf32>)
// CHECK-NEXT:    %[[MAX:[a-z0-9_]+]] = memref.alloc() : memref<2x1xf32>
// CHECK-NEXT:    kernel.compute "max" %[[MAX]](o0 = 2, o1 = 1) reduce(r0 = 10) combine "max" init 0xff800000 : f32 : memref<2x1xf32> {
// CHECK:         kernel.compute "exp2" %[[Y]](i0 = 2, i1 = 10) : memref<2x10xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[XV:[a-z0-9_]+]] = affine.load %[[X]][%[[I0]], %[[I1]]] : memref<2x10xf32>
// CHECK-NEXT:      %[[MV:[a-z0-9_]+]] = affine.load %[[MAX]][%[[I0]], 0] : memref<2x1xf32>
// CHECK-NEXT:      %[[D:[a-z0-9_]+]] = arith.subf %[[XV]], %[[MV]] : f32
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = math.exp %[[D]] : f32
// CHECK-NEXT:      kernel.yield %[[E]] : f32
// CHECK:         %[[SUM:[a-z0-9_]+]] = memref.alloc() : memref<2x1xf32>
// CHECK-NEXT:    kernel.compute "sum3" %[[SUM]](o0 = 2, o1 = 1) reduce(r0 = 10) combine "add" init 0.000000e+00 : f32 : memref<2x1xf32> {
// CHECK:           affine.load %[[Y]][%{{.*}}, %{{.*}}] : memref<2x10xf32>
// CHECK:         kernel.compute "softmax4" %[[Y]](i0 = 2, i1 = 10) : memref<2x10xf32> {
// CHECK:           %[[S:[a-z0-9_]+]] = affine.load %[[SUM]][%{{.*}}, 0] : memref<2x1xf32>
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK-NEXT:      %[[EV:[a-z0-9_]+]] = affine.load %[[Y]][%{{.*}}, %{{.*}}] : memref<2x10xf32>
// CHECK-NEXT:      %[[Q:[a-z0-9_]+]] = arith.mulf %[[EV]], %[[R]] : f32
// CHECK-NEXT:      kernel.yield %[[Q]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[MAX]] : memref<2x1xf32>
// CHECK-NEXT:    memref.dealloc %[[SUM]] : memref<2x1xf32>
// CHECK-NEXT:    func.return
func.func @main(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %y = tg.softmax %x {axis = 1 : i64} : tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

// Max pooling reduces over the window taps with "max" from -inf; the window start is
// stride * out - pad, and out-of-bounds taps read the pad value -inf (not 0), so padding
// never wins the max. No pad stage: the window reads the input directly.
// CHECK-LABEL: func.func @k0_max_pool2d(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x2x5x5xf32>, %[[Y:[a-z0-9_]+]]: memref<1x2x3x3xf32>)
// CHECK-NEXT:    kernel.compute "max_pool" %[[Y]](o0 = 1, o1 = 2, o2 = 3, o3 = 3) reduce(t0 = 3, t1 = 3) combine "max" init 0xff800000 : f32 : memref<1x2x3x3xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %[[O1:[a-z0-9_]+]]: index, %[[O2:[a-z0-9_]+]]: index, %[[O3:[a-z0-9_]+]]: index, %[[T0:[a-z0-9_]+]]: index, %[[T1:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = kernel.load %[[X]][%[[O0]], %[[O1]], %[[O2]] * 2 + -1 + %[[T0]], %[[O3]] * 2 + -1 + %[[T1]]] pad 0xff800000 : f32 : memref<1x2x5x5xf32>
// CHECK-NEXT:      kernel.yield %[[V]] : f32
// CHECK-NOT:     memref.alloc() :
// CHECK:         func.return
func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// Gemm: trans_b reads B[j, k]; alpha scales and C (broadcast over rows) adds in the
// then region. Matmul with a batch: B (rank 2) is broadcast over the batch axis o0.
// CHECK-LABEL: func.func @k0_gemm(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<4x8xf32>, %[[B:[a-z0-9_]+]]: memref<16x8xf32>, %[[C:[a-z0-9_]+]]: memref<16xf32>, %[[Y:[a-z0-9_]+]]: memref<4x16xf32>)
// CHECK-NEXT:    kernel.compute "gemm" %[[Y]](o0 = 4, o1 = 16) reduce(k = 8) combine "add" init 0.000000e+00 : f32 : memref<4x16xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %[[O1:[a-z0-9_]+]]: index, %[[K:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[AV:[a-z0-9_]+]] = affine.load %[[A]][%[[O0]], %[[K]]] : memref<4x8xf32>
// CHECK-NEXT:      %[[BV:[a-z0-9_]+]] = affine.load %[[B]][%[[O1]], %[[K]]] : memref<16x8xf32>
// CHECK-NEXT:      %[[P:[a-z0-9_]+]] = arith.mulf %[[AV]], %[[BV]] : f32
// CHECK-NEXT:      kernel.yield %[[P]] : f32
// CHECK-NEXT:    } then {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %[[T1:[a-z0-9_]+]]: index, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT:      %[[ALPHA:[a-z0-9_]+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[SC:[a-z0-9_]+]] = arith.mulf %[[ACC]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[CV:[a-z0-9_]+]] = affine.load %[[C]][%[[T1]]] : memref<16xf32>
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = arith.addf %[[SC]], %[[CV]] : f32
// CHECK-NEXT:      kernel.yield %[[R]] : f32
// CHECK-LABEL: func.func @k1_matmul(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<2x4x16xf32>, %[[B:[a-z0-9_]+]]: memref<16x5xf32>, %[[Y:[a-z0-9_]+]]: memref<2x4x5xf32>)
// CHECK-NEXT:    kernel.compute "matmul" %[[Y]](o0 = 2, o1 = 4, o2 = 5) reduce(k = 16) combine "add" init 0.000000e+00 : f32 : memref<2x4x5xf32> {
// CHECK-NEXT:    ^bb0(%[[O0:[a-z0-9_]+]]: index, %[[O1:[a-z0-9_]+]]: index, %[[O2:[a-z0-9_]+]]: index, %[[K:[a-z0-9_]+]]: index):
// CHECK-NEXT:      affine.load %[[A]][%[[O0]], %[[O1]], %[[K]]] : memref<2x4x16xf32>
// CHECK-NEXT:      affine.load %[[B]][%[[K]], %[[O2]]] : memref<16x5xf32>
func.func @main(%a: tensor<4x8xf32>, %c: tensor<16xf32>, %p: tensor<2x4x16xf32>, %q: tensor<16x5xf32>) -> (tensor<4x16xf32>, tensor<2x4x5xf32>) {
  %w = tg.weight @w : tensor<16x8xf32>
  %y = tg.gemm %a, %w, %c {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %z = tg.matmul %p, %q : (tensor<2x4x16xf32>, tensor<16x5xf32>) -> tensor<2x4x5xf32>
  func.return %y, %z : tensor<4x16xf32>, tensor<2x4x5xf32>
}

// -----

// @main in destination-passing style: outputs become trailing memref arguments marked
// tg.output; intermediates are views of one i8 arena at the offsets tg-plan-memory chose
// (or, without a plan, in an aligned allocation each); weights are uninitialized
// globals the runtime binds by name, constants are initialized globals. The three
// structurally identical matmul groups share one kernel, the last writes straight into
// the output. A result returned twice, or an input returned, is copied into its output.
// CHECK:         "memref.global"() <{sym_name = "w", type = memref<3x3xf32>, initial_value, sym_visibility = "private", constant}>
// CHECK-NEXT:    "memref.global"() <{sym_name = "__constant_0", type = memref<3xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>, sym_visibility = "private", constant}>
// CHECK-LABEL: func.func @k0_add(
// CHECK-LABEL: func.func @k1_matmul(
// CHECK-NOT:     func.func @k{{[0-9]+}}_
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %x: memref<3x3xf32> {tg.element = f32}, %[[O0:[a-z0-9_]+]]: memref<3x3xf32> {tg.output, tg.element = f32}, %[[O1:[a-z0-9_]+]]: memref<3x3xf32> {tg.output, tg.element = f32}, %[[O2:[a-z0-9_]+]]: memref<3x3xf32> {tg.output, tg.element = f32})
// CHECK-SAME:    attributes {tg.memory = {arena = 100 : i64, unplanned = 192 : i64}}
// CHECK-NEXT:    %[[ARENA:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<100xi8>
// CHECK-NEXT:    %[[W:[a-z0-9_]+]] = memref.get_global @w : memref<3x3xf32>
// CHECK-NEXT:    %[[K:[a-z0-9_]+]] = memref.get_global @__constant_0 : memref<3xf32>
// CHECK-NEXT:    %[[OFF0:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT:    %d = memref.view %[[ARENA]][%[[OFF0]]][] : memref<100xi8> to memref<3x3xf32>
// CHECK-NEXT:    func.call @k0_add(%x, %[[K]], %d)
// CHECK-NEXT:    %[[OFF64:[a-z0-9_]+]] = arith.constant 64 : index
// CHECK-NEXT:    %a = memref.view %[[ARENA]][%[[OFF64]]][] : memref<100xi8> to memref<3x3xf32>
// CHECK-NEXT:    func.call @k1_matmul(%d, %[[W]], %a)
// CHECK-NEXT:    %[[OFF0B:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT:    %b = memref.view %[[ARENA]][%[[OFF0B]]][] : memref<100xi8> to memref<3x3xf32>
// CHECK-NEXT:    func.call @k1_matmul(%a, %[[W]], %b)
// CHECK-NEXT:    func.call @k1_matmul(%b, %[[W]], %[[O0]])
// CHECK-NEXT:    "memref.copy"(%[[O0]], %[[O1]])
// CHECK-NEXT:    "memref.copy"(%x, %[[O2]])
// CHECK-NEXT:    func.return
// NOPLAN-LABEL: func.func @k0_add(
// NOPLAN-LABEL: func.func @main(
// NOPLAN-NOT:     memref.view
// NOPLAN:         %d = memref.alloc() {alignment = 64 : i64} : memref<3x3xf32>
// NOPLAN-NEXT:    func.call @k0_add(%x, %{{.*}}, %d)
// NOPLAN-NEXT:    %a = memref.alloc() {alignment = 64 : i64} : memref<3x3xf32>
// NOPLAN-NEXT:    func.call @k1_matmul(%d, %{{.*}}, %a)
func.func @main(%x: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) {
  %w = tg.weight @w : tensor<3x3xf32>
  %k = tg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %d = tg.add %x, %k : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  %a = tg.matmul %d, %w : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %b = tg.matmul %a, %w : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %c = tg.matmul %b, %w : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  func.return %c, %c, %x : tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>
}
