// The CPU code of a table: a module constant of 32-bit entries read by one masked gather per
// vector (32 lanes of the two-vector row loop), indices clamped to a short table's last entry,
// narrowed to the result type; the scalar edge code loads one entry.
// RUN: %tessel-run %s --target cpu --check --dump-ir %t.mlir | filecheck %s --check-prefix=EXACT
// RUN: filecheck %s < %t.mlir.ll
// EXACT: check: largest difference to the numpy reference 0 (bit-exact)
// CHECK: @pipeline.table0 = internal unnamed_addr constant [200 x i32]
// CHECK: call <32 x i32> @llvm.umin.v32i32(<32 x i32> %{{.*}}, <32 x i32> splat (i32 199))
// CHECK: call <32 x i32> @llvm.masked.gather.v32i32.v32p0(<32 x ptr> %{{.*}}, i32 4, <32 x i1> splat (i1 true), <32 x i32> poison)
// CHECK: trunc <32 x i32> %{{.*}} to <32 x i16>
func.func @f(%x: !img.frame<21x100x1xui8>) -> !img.frame<21x100x1xi16> {
  %l = img.lut %x table(dense<7> : tensor<200xi16>) : !img.frame<21x100x1xui8> -> !img.frame<21x100x1xi16>
  func.return %l : !img.frame<21x100x1xi16>
}
