// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=x86-64-v3 | filecheck %s
// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=znver3 | filecheck %s

// For an AVX2 server (x86-64-v3, a Zen 3), compiled on any machine, a stride-2
// convolution (a 3x3 stride-1 one is tg-winograd's): with 256-bit vectors
// (16 ymm registers) the convolution's inner loop is 256-bit FMAs: each 16-channel block is
// two ymm vectors, the input broadcast from memory, and no 512-bit (zmm) register anywhere. (512-bit vectors here were pairs of ymm: a 14-row tile
// of them needed 28 accumulators and spilled.)
// CHECK-LABEL: k1_conv2d_nchwc_relu__s1:
// CHECK:       vfmadd231ps {{.*}}, %ymm{{[0-9]+}}, %ymm{{[0-9]+}}
// CHECK-NOT:   zmm
// CHECK-LABEL: .Lfunc_end
func.func @main(%x: tensor<1x16x16x16xf32>) -> tensor<1x32x8x8xf32> {
  %w = tg.constant dense<0.5> : tensor<32x16x3x3xf32>
  %y = tg.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x16x16xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %r = tg.relu %y : tensor<1x32x8x8xf32>
  func.return %r : tensor<1x32x8x8xf32>
}
