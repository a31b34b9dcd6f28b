// RUN: %tessel-translate %s --target cpu --opt mcpu=znver4 | filecheck %s

// An int8 convolution's NCHW output, vectorized along its 32 channels (two vectors of 16,
// 8x8 = 64 elements apart): each vector.transfer_write is stored lane by lane at constant
// offsets from one address (LLVM folds them into the stores' addressing), not through a
// vector of pointers and a scatter.
// CHECK-LABEL: define void @k0_conv2d_integer_packed__s1(
// CHECK-NOT:     llvm.masked.scatter
// CHECK:         %[[P0:.+]] = getelementptr i32, ptr %[[BASE:.+]], i64 0
// CHECK-NEXT:    %[[V0:.+]] = extractelement <16 x i32> %[[ACC:.+]], i64 0
// CHECK-NEXT:    store i32 %[[V0]], ptr %[[P0]], align 4
// CHECK-NEXT:    %[[P1:.+]] = getelementptr i32, ptr %[[BASE]], i64 64
// CHECK-NEXT:    %[[V1:.+]] = extractelement <16 x i32> %[[ACC]], i64 1
// CHECK-NEXT:    store i32 %[[V1]], ptr %[[P1]], align 4
// CHECK-NEXT:    %[[P2:.+]] = getelementptr i32, ptr %[[BASE]], i64 128
// CHECK-NOT:     llvm.masked.scatter
// CHECK-LABEL: define void @k0_conv2d_integer_packed__s1.dispatch(
func.func @main(%x: tensor<1x32x8x8xi8>) -> tensor<1x32x8x8xi32> {
  %xz = tg.constant dense<-3> : tensor<i8>
  %w = tg.constant dense<5> : tensor<32x32x3x3xi8>
  %wz = tg.constant dense<0> : tensor<i8>
  %y = tg.conv2d_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x32x8x8xi8>, tensor<32x32x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x32x8x8xi32>
  func.return %y : tensor<1x32x8x8xi32>
}
