// isp_lite (u8, 1080x1920): Raw planes (h/2 x w/2 each) -> R, G, B at h/4 x w/4.
func.func @isp_lite(%r: !img.frame<540x960x1xui8>, %gr: !img.frame<540x960x1xui8>, %gb: !img.frame<540x960x1xui8>, %b: !img.frame<540x960x1xui8>) -> (!img.frame<270x480x1xui8>, !img.frame<270x480x1xui8>, !img.frame<270x480x1xui8>) {
  %r_lin = img.map %r : (!img.frame<540x960x1xui8>) -> !img.frame<540x960x1xui8> {
  ^bb0(%p0: i8):
    %v1 = arith.extui %p0 : i8 to i32
    %v2 = arith.constant 410 : i32
    %v3 = arith.muli %v1, %v2 : i32
    %v4 = arith.constant 128 : i32
    %v5 = arith.addi %v3, %v4 : i32
    %v6 = arith.constant 8 : i32
    %v7 = arith.shrui %v5, %v6 : i32
    %v8 = arith.constant 255 : i32
    %v9 = arith.minui %v7, %v8 : i32
    %v10 = arith.uitofp %v9 : i32 to f32
    %v11 = arith.constant 2.550000000e+02 : f32
    %v12 = arith.mulf %v10, %v11 : f32
    %v13 = math.sqrt %v12 : f32
    %v14 = arith.constant 5.000000000e-01 : f32
    %v15 = arith.addf %v13, %v14 : f32
    %v16 = arith.fptoui %v15 : f32 to i8
    img.yield %v16 : i8
  }
  %r_dn = img.stencil %r_lin window [3, 3] border clamp : (!img.frame<540x960x1xui8>) -> !img.frame<540x960x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    %v1 = arith.extui %p0 : i8 to i16
    %v2 = arith.extui %p1 : i8 to i16
    %v3 = arith.extui %p2 : i8 to i16
    %v4 = arith.extui %p3 : i8 to i16
    %v5 = arith.extui %p4 : i8 to i16
    %v6 = arith.extui %p5 : i8 to i16
    %v7 = arith.extui %p6 : i8 to i16
    %v8 = arith.extui %p7 : i8 to i16
    %v9 = arith.extui %p8 : i8 to i16
    %v10 = arith.constant 2 : i16
    %v11 = arith.muli %v2, %v10 : i16
    %v12 = arith.constant 2 : i16
    %v13 = arith.muli %v4, %v12 : i16
    %v14 = arith.constant 4 : i16
    %v15 = arith.muli %v5, %v14 : i16
    %v16 = arith.constant 2 : i16
    %v17 = arith.muli %v6, %v16 : i16
    %v18 = arith.constant 2 : i16
    %v19 = arith.muli %v8, %v18 : i16
    %v20 = arith.addi %v1, %v11 : i16
    %v21 = arith.addi %v20, %v3 : i16
    %v22 = arith.addi %v21, %v13 : i16
    %v23 = arith.addi %v22, %v15 : i16
    %v24 = arith.addi %v23, %v17 : i16
    %v25 = arith.addi %v24, %v7 : i16
    %v26 = arith.addi %v25, %v19 : i16
    %v27 = arith.addi %v26, %v9 : i16
    %v28 = arith.constant 8 : i16
    %v29 = arith.addi %v27, %v28 : i16
    %v30 = arith.constant 4 : i16
    %v31 = arith.shrui %v29, %v30 : i16
    %v32 = arith.trunci %v31 : i16 to i8
    img.yield %v32 : i8
  }
  %r_out = img.downsample %r_dn factor [2, 2] mode average : !img.frame<540x960x1xui8> -> !img.frame<270x480x1xui8>
  %g_lin = img.map %gr, %gb : (!img.frame<540x960x1xui8>, !img.frame<540x960x1xui8>) -> !img.frame<540x960x1xui8> {
  ^bb0(%p0: i8, %p1: i8):
    %v1 = arith.extui %p0 : i8 to i16
    %v2 = arith.extui %p1 : i8 to i16
    %v3 = arith.addi %v1, %v2 : i16
    %v4 = arith.constant 1 : i16
    %v5 = arith.addi %v3, %v4 : i16
    %v6 = arith.constant 1 : i16
    %v7 = arith.shrui %v5, %v6 : i16
    %v8 = arith.trunci %v7 : i16 to i8
    %v9 = arith.extui %v8 : i8 to i32
    %v10 = arith.constant 256 : i32
    %v11 = arith.muli %v9, %v10 : i32
    %v12 = arith.constant 128 : i32
    %v13 = arith.addi %v11, %v12 : i32
    %v14 = arith.constant 8 : i32
    %v15 = arith.shrui %v13, %v14 : i32
    %v16 = arith.constant 255 : i32
    %v17 = arith.minui %v15, %v16 : i32
    %v18 = arith.uitofp %v17 : i32 to f32
    %v19 = arith.constant 2.550000000e+02 : f32
    %v20 = arith.mulf %v18, %v19 : f32
    %v21 = math.sqrt %v20 : f32
    %v22 = arith.constant 5.000000000e-01 : f32
    %v23 = arith.addf %v21, %v22 : f32
    %v24 = arith.fptoui %v23 : f32 to i8
    img.yield %v24 : i8
  }
  %g_dn = img.stencil %g_lin window [3, 3] border clamp : (!img.frame<540x960x1xui8>) -> !img.frame<540x960x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    %v1 = arith.extui %p0 : i8 to i16
    %v2 = arith.extui %p1 : i8 to i16
    %v3 = arith.extui %p2 : i8 to i16
    %v4 = arith.extui %p3 : i8 to i16
    %v5 = arith.extui %p4 : i8 to i16
    %v6 = arith.extui %p5 : i8 to i16
    %v7 = arith.extui %p6 : i8 to i16
    %v8 = arith.extui %p7 : i8 to i16
    %v9 = arith.extui %p8 : i8 to i16
    %v10 = arith.constant 2 : i16
    %v11 = arith.muli %v2, %v10 : i16
    %v12 = arith.constant 2 : i16
    %v13 = arith.muli %v4, %v12 : i16
    %v14 = arith.constant 4 : i16
    %v15 = arith.muli %v5, %v14 : i16
    %v16 = arith.constant 2 : i16
    %v17 = arith.muli %v6, %v16 : i16
    %v18 = arith.constant 2 : i16
    %v19 = arith.muli %v8, %v18 : i16
    %v20 = arith.addi %v1, %v11 : i16
    %v21 = arith.addi %v20, %v3 : i16
    %v22 = arith.addi %v21, %v13 : i16
    %v23 = arith.addi %v22, %v15 : i16
    %v24 = arith.addi %v23, %v17 : i16
    %v25 = arith.addi %v24, %v7 : i16
    %v26 = arith.addi %v25, %v19 : i16
    %v27 = arith.addi %v26, %v9 : i16
    %v28 = arith.constant 8 : i16
    %v29 = arith.addi %v27, %v28 : i16
    %v30 = arith.constant 4 : i16
    %v31 = arith.shrui %v29, %v30 : i16
    %v32 = arith.trunci %v31 : i16 to i8
    img.yield %v32 : i8
  }
  %g_out = img.downsample %g_dn factor [2, 2] mode average : !img.frame<540x960x1xui8> -> !img.frame<270x480x1xui8>
  %b_lin = img.map %b : (!img.frame<540x960x1xui8>) -> !img.frame<540x960x1xui8> {
  ^bb0(%p0: i8):
    %v1 = arith.extui %p0 : i8 to i32
    %v2 = arith.constant 358 : i32
    %v3 = arith.muli %v1, %v2 : i32
    %v4 = arith.constant 128 : i32
    %v5 = arith.addi %v3, %v4 : i32
    %v6 = arith.constant 8 : i32
    %v7 = arith.shrui %v5, %v6 : i32
    %v8 = arith.constant 255 : i32
    %v9 = arith.minui %v7, %v8 : i32
    %v10 = arith.uitofp %v9 : i32 to f32
    %v11 = arith.constant 2.550000000e+02 : f32
    %v12 = arith.mulf %v10, %v11 : f32
    %v13 = math.sqrt %v12 : f32
    %v14 = arith.constant 5.000000000e-01 : f32
    %v15 = arith.addf %v13, %v14 : f32
    %v16 = arith.fptoui %v15 : f32 to i8
    img.yield %v16 : i8
  }
  %b_dn = img.stencil %b_lin window [3, 3] border clamp : (!img.frame<540x960x1xui8>) -> !img.frame<540x960x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    %v1 = arith.extui %p0 : i8 to i16
    %v2 = arith.extui %p1 : i8 to i16
    %v3 = arith.extui %p2 : i8 to i16
    %v4 = arith.extui %p3 : i8 to i16
    %v5 = arith.extui %p4 : i8 to i16
    %v6 = arith.extui %p5 : i8 to i16
    %v7 = arith.extui %p6 : i8 to i16
    %v8 = arith.extui %p7 : i8 to i16
    %v9 = arith.extui %p8 : i8 to i16
    %v10 = arith.constant 2 : i16
    %v11 = arith.muli %v2, %v10 : i16
    %v12 = arith.constant 2 : i16
    %v13 = arith.muli %v4, %v12 : i16
    %v14 = arith.constant 4 : i16
    %v15 = arith.muli %v5, %v14 : i16
    %v16 = arith.constant 2 : i16
    %v17 = arith.muli %v6, %v16 : i16
    %v18 = arith.constant 2 : i16
    %v19 = arith.muli %v8, %v18 : i16
    %v20 = arith.addi %v1, %v11 : i16
    %v21 = arith.addi %v20, %v3 : i16
    %v22 = arith.addi %v21, %v13 : i16
    %v23 = arith.addi %v22, %v15 : i16
    %v24 = arith.addi %v23, %v17 : i16
    %v25 = arith.addi %v24, %v7 : i16
    %v26 = arith.addi %v25, %v19 : i16
    %v27 = arith.addi %v26, %v9 : i16
    %v28 = arith.constant 8 : i16
    %v29 = arith.addi %v27, %v28 : i16
    %v30 = arith.constant 4 : i16
    %v31 = arith.shrui %v29, %v30 : i16
    %v32 = arith.trunci %v31 : i16 to i8
    img.yield %v32 : i8
  }
  %b_out = img.downsample %b_dn factor [2, 2] mode average : !img.frame<540x960x1xui8> -> !img.frame<270x480x1xui8>
  func.return %r_out, %g_out, %b_out : !img.frame<270x480x1xui8>, !img.frame<270x480x1xui8>, !img.frame<270x480x1xui8>
}
