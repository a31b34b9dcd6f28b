// RUN: %tessel-opt %s -p tg-layout,tg-fuse,tg-plan-memory,tg-to-kernel | filecheck %s

// After tg-layout a convolution is conv2d_nchwc between layout transforms. Its kernel
// must index the blocked buffers right: the output channel block `mi` is the innermost
// spatial axis (kernel-to-loops vectorizes it), the input channel block `ci` the
// innermost reduction axis, the weight is read as [mo, co, kh, kw, ci, mi] and the
// per-channel bias at mo * 16 + mi. The transforms themselves are element-wise stages
// whose loads do the (un)blocking arithmetic.

// CHECK-LABEL: func.func @k0_layout_transform(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x16x6x6xf32>, %[[XB:[a-z0-9_]+]]: memref<1x1x6x6x16xf32>)
// CHECK-NEXT:    kernel.compute "layout_transform" %[[XB]](i0 = 1, i1 = 1, i2 = 6, i3 = 6, i4 = 16) : memref<1x1x6x6x16xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index, %[[I2:[a-z0-9_]+]]: index, %[[I3:[a-z0-9_]+]]: index, %[[I4:[a-z0-9_]+]]: index):
// CHECK-NEXT:      affine.load %[[X]][%[[I0]], %[[I1]] * 16 + %[[I4]], %[[I2]], %[[I3]]] : memref<1x16x6x6xf32>

// OIHW -> OIHW16i16o: o = i0 * 16 + i5, i = i1 * 16 + i4.
// CHECK-LABEL: func.func @k1_layout_transform(
// CHECK-SAME:    %[[W:[a-z0-9_]+]]: memref<32x16x3x3xf32>, %[[WB:[a-z0-9_]+]]: memref<2x1x3x3x16x16xf32>)
// CHECK-NEXT:    kernel.compute "layout_transform" %[[WB]](i0 = 2, i1 = 1, i2 = 3, i3 = 3, i4 = 16, i5 = 16) : memref<2x1x3x3x16x16xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index, %[[I2:[a-z0-9_]+]]: index, %[[I3:[a-z0-9_]+]]: index, %[[I4:[a-z0-9_]+]]: index, %[[I5:[a-z0-9_]+]]: index):
// CHECK-NEXT:      affine.load %[[W]][%[[I0]] * 16 + %[[I5]], %[[I1]] * 16 + %[[I4]], %[[I2]], %[[I3]]] : memref<32x16x3x3xf32>

// CHECK-LABEL: func.func @k2_conv2d_nchwc_relu(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x6x6x16xf32>, %[[W:[a-z0-9_]+]]: memref<2x1x3x3x16x16xf32>, %[[B:[a-z0-9_]+]]: memref<32xf32>, %[[Y:[a-z0-9_]+]]: memref<1x2x6x6x16xf32>)
// CHECK-NEXT:    %[[P:[a-z0-9_]+]] = memref.alloc() : memref<1x1x8x8x16xf32>
// CHECK-NEXT:    kernel.compute "pad" %[[P]](i0 = 1, i1 = 1, i2 = 8, i3 = 8, i4 = 16) : memref<1x1x8x8x16xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index, %[[I2:[a-z0-9_]+]]: index, %[[I3:[a-z0-9_]+]]: index, %[[I4:[a-z0-9_]+]]: index):
// CHECK-NEXT:      kernel.load %[[X]][%[[I0]], %[[I1]], %[[I2]] + -1, %[[I3]] + -1, %[[I4]]] pad 0.000000e+00 : f32 : memref<1x1x6x6x16xf32>
// CHECK:         kernel.compute "conv2" %[[Y]](n = 1, mo = 2, oh = 6, ow = 6, mi = 16) reduce(co = 1, kh = 3, kw = 3, ci = 16) combine "add" init 0.000000e+00 : f32 : memref<1x2x6x6x16xf32> {
// CHECK-NEXT:    ^bb0(%[[N:[a-z0-9_]+]]: index, %[[MO:[a-z0-9_]+]]: index, %[[OH:[a-z0-9_]+]]: index, %[[OW:[a-z0-9_]+]]: index, %[[MI:[a-z0-9_]+]]: index, %[[CO:[a-z0-9_]+]]: index, %[[KH:[a-z0-9_]+]]: index, %[[KW:[a-z0-9_]+]]: index, %[[CI:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[XV:[a-z0-9_]+]] = affine.load %[[P]][%[[N]], %[[CO]], %[[OH]] + %[[KH]], %[[OW]] + %[[KW]], %[[CI]]] : memref<1x1x8x8x16xf32>
// CHECK-NEXT:      %[[WV:[a-z0-9_]+]] = affine.load %[[W]][%[[MO]], %[[CO]], %[[KH]], %[[KW]], %[[CI]], %[[MI]]] : memref<2x1x3x3x16x16xf32>
// CHECK-NEXT:      %[[M:[a-z0-9_]+]] = arith.mulf %[[XV]], %[[WV]] : f32
// CHECK-NEXT:      kernel.yield %[[M]] : f32
// CHECK-NEXT:    } then {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %[[TMO:[a-z0-9_]+]]: index, %{{.*}}: index, %{{.*}}: index, %[[TMI:[a-z0-9_]+]]: index, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT:      %[[BV:[a-z0-9_]+]] = affine.load %[[B]][%[[TMO]] * 16 + %[[TMI]]] : memref<32xf32>
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = arith.addf %[[ACC]], %[[BV]] : f32
// CHECK-NEXT:      %[[Z:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = arith.maximumf %[[S]], %[[Z]] : f32
// CHECK-NEXT:      kernel.yield %[[R]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[P]] : memref<1x1x8x8x16xf32>

// Back to NCHW: channel c is block c floordiv 16, lane c mod 16. The relu stays in the
// conv's epilogue (tg-fuse leaves it to the anchor rather than to this transform).
// CHECK-LABEL: func.func @k3_layout_transform(
// CHECK-SAME:    %[[YB:[a-z0-9_]+]]: memref<1x2x6x6x16xf32>, %[[OUT:[a-z0-9_]+]]: memref<1x32x6x6xf32>)
// CHECK-NEXT:    kernel.compute "layout_transform" %[[OUT]](i0 = 1, i1 = 32, i2 = 6, i3 = 6) : memref<1x32x6x6xf32> {
// CHECK-NEXT:    ^bb0(%[[I0:[a-z0-9_]+]]: index, %[[I1:[a-z0-9_]+]]: index, %[[I2:[a-z0-9_]+]]: index, %[[I3:[a-z0-9_]+]]: index):
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = affine.load %[[YB]][%[[I0]], %[[I1]] floordiv 16, %[[I2]], %[[I3]], %[[I1]] mod 16] : memref<1x2x6x6x16xf32>
// CHECK-NEXT:      kernel.yield %[[V]] : f32

// The blocked intermediates live in the arena; the conv reads the blocked input and
// weight views and writes the blocked output view.
// CHECK-LABEL: func.func @main(
// CHECK:         %[[XB:[a-z0-9_]+]] = memref.view %{{.*}} : memref<{{[0-9]+}}xi8> to memref<1x1x6x6x16xf32>
// CHECK-NEXT:    func.call @k0_layout_transform(%x, %[[XB]])
// CHECK:         %[[WB:[a-z0-9_]+]] = memref.view %{{.*}} : memref<{{[0-9]+}}xi8> to memref<2x1x3x3x16x16xf32>
// CHECK-NEXT:    func.call @k1_layout_transform(%{{.*}}, %[[WB]])
// CHECK:         %[[YB:[a-z0-9_]+]] = memref.view %{{.*}} : memref<{{[0-9]+}}xi8> to memref<1x2x6x6x16xf32>
// CHECK-NEXT:    func.call @k2_conv2d_nchwc_relu(%[[XB]], %[[WB]], %{{.*}}, %[[YB]])
// CHECK-NEXT:    func.call @k3_layout_transform(%[[YB]], %{{.*}})
func.func @main(%x: tensor<1x16x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %w = tg.weight @w : tensor<32x16x3x3xf32>
  %b = tg.weight @b : tensor<32xf32>
  %a = tg.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x6x6xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x6x6xf32>
  %r = tg.relu %a : tensor<1x32x6x6xf32>
  func.return %r : tensor<1x32x6x6xf32>
}
