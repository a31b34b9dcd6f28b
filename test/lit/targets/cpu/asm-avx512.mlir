// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=sapphirerapids | filecheck %s
// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=znver4 | filecheck %s

// For an AVX-512 server (an Intel Sapphire Rapids, an AMD Zen 4), compiled on any machine, a
// stride-2 convolution (a 3x3 stride-1 one is tg-winograd's):
// the convolution's inner loop is 512-bit FMAs on zmm registers: the register tile is 8
// pixels by both 16-channel output blocks (register_tile.py), so each input element is
// broadcast once into a register and feeds two FMAs, one per block's weight vector; 16
// accumulators, and no 256-bit (ymm) instruction after them (the relu epilogue included).
// CHECK-LABEL: k1_conv2d_nchwc_relu__s1:
// CHECK:       vbroadcastss {{.*}}, %zmm{{[0-9]+}}
// CHECK-COUNT-16: vfmadd231ps %zmm{{[0-9]+}}, %zmm{{[0-9]+}}, %zmm{{[0-9]+}}
// CHECK-NOT:   ymm
// CHECK-LABEL: .Lfunc_end
func.func @main(%x: tensor<1x16x16x16xf32>) -> tensor<1x32x8x8xf32> {
  %w = tg.constant dense<0.5> : tensor<32x16x3x3xf32>
  %a = tg.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x16x16xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %r = tg.relu %a : tensor<1x32x8x8xf32>
  func.return %r : tensor<1x32x8x8xf32>
}
