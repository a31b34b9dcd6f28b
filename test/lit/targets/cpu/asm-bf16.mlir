// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=znver4 | filecheck %s --check-prefix=BF16
// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=sapphirerapids | filecheck %s --check-prefix=BF16
// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=icelake-server | filecheck %s --check-prefix=GENERIC
// RUN: %tessel-translate %s --target cpu --opt mcpu=znver4 | filecheck %s --check-prefix=IR

// A bfloat16 dense layer (--precision bf16: tg-bf16-dense made it) on a CPU with
// AVX512-BF16 (Zen 4, Sapphire Rapids) accumulates with vdpbf16ps: the activation pair
// broadcast from memory, 16 columns' weight pairs per zmm register, two multiply-adds
// per lane. Only the product's function is compiled with AVX512-BF16 (attribute group
// #1): its float -> bfloat16 conversions elsewhere would flush subnormals. An Ice Lake
// server, without it, gets generic code: the halves widened and multiplied-added in
// float32 (vpslld, vpandq, vmulps), no vdpbf16ps.
// BF16-LABEL:   k0_dense_packed_bf16__s1:
// BF16:         vdpbf16ps {{.*}}%zmm{{[0-9]+}}
// BF16-LABEL:   .Lfunc_end
// GENERIC-LABEL: k0_dense_packed_bf16__s1:
// GENERIC-NOT:  vdpbf16ps
// GENERIC:      vmulps {{.*}}%zmm
// GENERIC-NOT:  vdpbf16ps
// GENERIC-LABEL: .Lfunc_end
// IR:           attributes #1 = { {{.*}} "target-features"="{{.*}}+avx512bf16"
// IR:           define void @k0_dense_packed_bf16__s1({{.*}}) #1 {
// IR:           call <16 x float> @llvm.x86.avx512bf16.dpbf16ps.512(
// IR:           attributes #0 = {
// IR-NOT:       avx512bf16
func.func @main(%x: tensor<4x64xf32>, %w: tensor<2x32x16xi32>) -> tensor<4x32xf32> {
  %y = tg.dense_packed_bf16 %x, %w {columns = 32 : i64} : (tensor<4x64xf32>, tensor<2x32x16xi32>) -> tensor<4x32xf32>
  func.return %y : tensor<4x32xf32>
}
