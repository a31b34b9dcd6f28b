// RUN: %tessel-translate %s --target cpu --opt vector-bits=512 | filecheck %s
// RUN: %tessel-translate %s --target cpu --opt vector-bits=512 --opt form=opt-ll | filecheck %s --check-prefix=OPT
// RUN: %tessel-translate %s --target cpu --opt vector-bits=256 | filecheck %s --check-prefix=AVX2
// RUN: not %tessel-translate %s --target cpu --opt vector-bits=384 2>&1 | filecheck %s --check-prefix=BITS
// RUN: not %tessel-translate %s --target cpu --opt mcpu=pentium4 2>&1 | filecheck %s --check-prefix=MCPU

// The schedules follow the vector register they are given (`vector-bits`, by default the
// host's): the 16 channels of a block are one 512-bit vector on AVX-512, two 256-bit ones on
// AVX2 (16 ymm registers: a 14-row tile of 512-bit vectors would need 28).
// AVX2: define void @k3_conv2d_nchwc_add_relu__s1(
// AVX2: fmul contract <8 x float>
// AVX2-NOT: <16 x float>
// BITS: error: cpu: vector-bits must be 128, 256, 512, got '384'
// MCPU: error: unknown CPU 'pentium4' for mcpu (known: native, x86-64, x86-64-v2, x86-64-v3, x86-64-v4, {{.*}}znver5)

// A 3x3 convolution with bias and relu, where the weights and bias are inputs (not
// constants, so their transforms to the blocked layout are kernels of their own). The
// conv, the bias add and the relu are one kernel (its stage functions take the buffers
// they use, here the weights, bias, output and padded input, and their slice [lo, hi) of
// the parallel loop); the transform back to NCHW another.
// CHECK:     define void @k0_layout_transform__s0(
// CHECK:     define void @k1_layout_transform__s0(
// CHECK:     define void @k2_reshape_layout_transform__s0(
// CHECK:     define void @k3_conv2d_nchwc_add_relu__s1(ptr noalias %a0, ptr noalias %a1, ptr noalias %a2, ptr noalias %a3, i64 %a4, i64 %a5) #0
// The multiply-adds are 16-lane, allowed to contract into FMAs and nothing more.
// CHECK:     fmul contract <16 x float>
// CHECK:     fadd contract <16 x float>
// CHECK:     define void @k4_layout_transform__s0(
// CHECK-NOT: define void @k5
// Each stage has a dispatcher for the native launch plan, which the module carries.
// CHECK:     define void @k3_conv2d_nchwc_add_relu__s1.dispatch(ptr %args, i64 %lo, i64 %hi)
// CHECK:     define void @tessel.run_plan(ptr %plan, i64 %count, i32 %threads)
// Every stage function asks LLVM for 512-bit vectors: the host's default would be 256.
// CHECK:     attributes #0 = { "prefer-vector-width"="512" "min-legal-vector-width"="512"
// O3 keeps the accumulators in registers (no loads or stores of the tile in the loop).
// OPT-LABEL: define void @k3_conv2d_nchwc_add_relu__s1(
// OPT:       fmul contract <16 x float>
// OPT-NEXT:  fadd contract <16 x float> %{{.*}}.sroa.
func.func @main(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32> {
  %a = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %c = tg.add %a, %b : (tensor<1x32x8x8xf32>, tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32>
  %r = tg.relu %c : tensor<1x32x8x8xf32>
  func.return %r : tensor<1x32x8x8xf32>
}
