// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=cascadelake | filecheck %s --check-prefix=VNNI
// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=znver5 | filecheck %s --check-prefix=VNNI
// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=skylake-avx512 | filecheck %s --check-prefix=NOVNNI
// RUN: %tessel-translate %s --target cpu --opt form=asm --opt mcpu=x86-64-v3 | filecheck %s --check-prefix=AVX2

// The int8 convolution's byte dot products (kernel.dot4) are one vpdpbusd per 16 lanes on a
// CPU with AVX-512 VNNI (Cascade Lake, Zen 4/5), whatever machine compiles them; on a
// Skylake-SP, which lacks VNNI, generic widening multiply-adds on zmm; on an AVX2 server
// (x86-64-v3) the same on ymm registers, no 512-bit instruction: the bytes as i16 halves in
// place, multiplied and summed in pairs by vpmaddwd (exact), no lane shuffles.
// VNNI-LABEL:   k{{[0-9]+}}_conv2d_integer_packed__s1:
// VNNI:         vpdpbusd {{.*}}%zmm{{[0-9]+}}
// VNNI-LABEL:   .Lfunc_end
// NOVNNI-LABEL: k{{[0-9]+}}_conv2d_integer_packed__s1:
// NOVNNI-NOT:   vpdpbusd
// NOVNNI:       vpmaddwd {{.*}}%zmm
// NOVNNI-NOT:   vpdpbusd
// NOVNNI-LABEL: .Lfunc_end
// AVX2-LABEL:   k{{[0-9]+}}_conv2d_integer_packed__s1:
// AVX2-NOT:     {{vpdpbusd|zmm}}
// AVX2:         vpmaddwd {{.*}}%ymm
// AVX2-NOT:     {{vpermd|vpdpbusd|zmm}}
// AVX2-NOT:     {{vpdpbusd|zmm}}
// AVX2-LABEL:   .Lfunc_end
func.func @main(%x: tensor<1x32x8x8xi8>) -> tensor<1x32x8x8xi32> {
  %xz = tg.constant dense<-3> : tensor<i8>
  %w = tg.constant dense<5> : tensor<32x32x3x3xi8>
  %wz = tg.constant dense<0> : tensor<i8>
  %y = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x8x8xi8>, tensor<32x32x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x32x8x8xi32>
  func.return %y : tensor<1x32x8x8xi32>
}
