// isp_lite (f32, 1080x1920): Raw planes (h/2 x w/2 each) -> R, G, B at h/4 x w/4.
func.func @isp_lite(%r: !img.frame<540x960x1xf32>, %gr: !img.frame<540x960x1xf32>, %gb: !img.frame<540x960x1xf32>, %b: !img.frame<540x960x1xf32>) -> (!img.frame<270x480x1xf32>, !img.frame<270x480x1xf32>, !img.frame<270x480x1xf32>) {
  %r_lin = img.map %r : (!img.frame<540x960x1xf32>) -> !img.frame<540x960x1xf32> {
  ^bb0(%p0: f32):
    %v1 = arith.constant 1.600000000e+00 : f32
    %v2 = arith.mulf %p0, %v1 : f32
    %v3 = arith.constant 1.000000000e+00 : f32
    %v4 = arith.minimumf %v2, %v3 : f32
    %v5 = math.sqrt %v4 : f32
    img.yield %v5 : f32
  }
  %r_dn = img.stencil %r_lin window [3, 3] border clamp : (!img.frame<540x960x1xf32>) -> !img.frame<540x960x1xf32> {
  ^bb0(%p0: f32, %p1: f32, %p2: f32, %p3: f32, %p4: f32, %p5: f32, %p6: f32, %p7: f32, %p8: f32):
    %v1 = arith.constant 6.250000000e-02 : f32
    %v2 = arith.mulf %p0, %v1 : f32
    %v3 = arith.constant 1.250000000e-01 : f32
    %v4 = arith.mulf %p1, %v3 : f32
    %v5 = arith.constant 6.250000000e-02 : f32
    %v6 = arith.mulf %p2, %v5 : f32
    %v7 = arith.constant 1.250000000e-01 : f32
    %v8 = arith.mulf %p3, %v7 : f32
    %v9 = arith.constant 2.500000000e-01 : f32
    %v10 = arith.mulf %p4, %v9 : f32
    %v11 = arith.constant 1.250000000e-01 : f32
    %v12 = arith.mulf %p5, %v11 : f32
    %v13 = arith.constant 6.250000000e-02 : f32
    %v14 = arith.mulf %p6, %v13 : f32
    %v15 = arith.constant 1.250000000e-01 : f32
    %v16 = arith.mulf %p7, %v15 : f32
    %v17 = arith.constant 6.250000000e-02 : f32
    %v18 = arith.mulf %p8, %v17 : f32
    %v19 = arith.addf %v2, %v4 : f32
    %v20 = arith.addf %v19, %v6 : f32
    %v21 = arith.addf %v20, %v8 : f32
    %v22 = arith.addf %v21, %v10 : f32
    %v23 = arith.addf %v22, %v12 : f32
    %v24 = arith.addf %v23, %v14 : f32
    %v25 = arith.addf %v24, %v16 : f32
    %v26 = arith.addf %v25, %v18 : f32
    img.yield %v26 : f32
  }
  %r_out = img.downsample %r_dn factor [2, 2] mode average : !img.frame<540x960x1xf32> -> !img.frame<270x480x1xf32>
  %g_lin = img.map %gr, %gb : (!img.frame<540x960x1xf32>, !img.frame<540x960x1xf32>) -> !img.frame<540x960x1xf32> {
  ^bb0(%p0: f32, %p1: f32):
    %v1 = arith.addf %p0, %p1 : f32
    %v2 = arith.constant 5.000000000e-01 : f32
    %v3 = arith.mulf %v1, %v2 : f32
    %v4 = arith.constant 1.000000000e+00 : f32
    %v5 = arith.mulf %v3, %v4 : f32
    %v6 = arith.constant 1.000000000e+00 : f32
    %v7 = arith.minimumf %v5, %v6 : f32
    %v8 = math.sqrt %v7 : f32
    img.yield %v8 : f32
  }
  %g_dn = img.stencil %g_lin window [3, 3] border clamp : (!img.frame<540x960x1xf32>) -> !img.frame<540x960x1xf32> {
  ^bb0(%p0: f32, %p1: f32, %p2: f32, %p3: f32, %p4: f32, %p5: f32, %p6: f32, %p7: f32, %p8: f32):
    %v1 = arith.constant 6.250000000e-02 : f32
    %v2 = arith.mulf %p0, %v1 : f32
    %v3 = arith.constant 1.250000000e-01 : f32
    %v4 = arith.mulf %p1, %v3 : f32
    %v5 = arith.constant 6.250000000e-02 : f32
    %v6 = arith.mulf %p2, %v5 : f32
    %v7 = arith.constant 1.250000000e-01 : f32
    %v8 = arith.mulf %p3, %v7 : f32
    %v9 = arith.constant 2.500000000e-01 : f32
    %v10 = arith.mulf %p4, %v9 : f32
    %v11 = arith.constant 1.250000000e-01 : f32
    %v12 = arith.mulf %p5, %v11 : f32
    %v13 = arith.constant 6.250000000e-02 : f32
    %v14 = arith.mulf %p6, %v13 : f32
    %v15 = arith.constant 1.250000000e-01 : f32
    %v16 = arith.mulf %p7, %v15 : f32
    %v17 = arith.constant 6.250000000e-02 : f32
    %v18 = arith.mulf %p8, %v17 : f32
    %v19 = arith.addf %v2, %v4 : f32
    %v20 = arith.addf %v19, %v6 : f32
    %v21 = arith.addf %v20, %v8 : f32
    %v22 = arith.addf %v21, %v10 : f32
    %v23 = arith.addf %v22, %v12 : f32
    %v24 = arith.addf %v23, %v14 : f32
    %v25 = arith.addf %v24, %v16 : f32
    %v26 = arith.addf %v25, %v18 : f32
    img.yield %v26 : f32
  }
  %g_out = img.downsample %g_dn factor [2, 2] mode average : !img.frame<540x960x1xf32> -> !img.frame<270x480x1xf32>
  %b_lin = img.map %b : (!img.frame<540x960x1xf32>) -> !img.frame<540x960x1xf32> {
  ^bb0(%p0: f32):
    %v1 = arith.constant 1.400000000e+00 : f32
    %v2 = arith.mulf %p0, %v1 : f32
    %v3 = arith.constant 1.000000000e+00 : f32
    %v4 = arith.minimumf %v2, %v3 : f32
    %v5 = math.sqrt %v4 : f32
    img.yield %v5 : f32
  }
  %b_dn = img.stencil %b_lin window [3, 3] border clamp : (!img.frame<540x960x1xf32>) -> !img.frame<540x960x1xf32> {
  ^bb0(%p0: f32, %p1: f32, %p2: f32, %p3: f32, %p4: f32, %p5: f32, %p6: f32, %p7: f32, %p8: f32):
    %v1 = arith.constant 6.250000000e-02 : f32
    %v2 = arith.mulf %p0, %v1 : f32
    %v3 = arith.constant 1.250000000e-01 : f32
    %v4 = arith.mulf %p1, %v3 : f32
    %v5 = arith.constant 6.250000000e-02 : f32
    %v6 = arith.mulf %p2, %v5 : f32
    %v7 = arith.constant 1.250000000e-01 : f32
    %v8 = arith.mulf %p3, %v7 : f32
    %v9 = arith.constant 2.500000000e-01 : f32
    %v10 = arith.mulf %p4, %v9 : f32
    %v11 = arith.constant 1.250000000e-01 : f32
    %v12 = arith.mulf %p5, %v11 : f32
    %v13 = arith.constant 6.250000000e-02 : f32
    %v14 = arith.mulf %p6, %v13 : f32
    %v15 = arith.constant 1.250000000e-01 : f32
    %v16 = arith.mulf %p7, %v15 : f32
    %v17 = arith.constant 6.250000000e-02 : f32
    %v18 = arith.mulf %p8, %v17 : f32
    %v19 = arith.addf %v2, %v4 : f32
    %v20 = arith.addf %v19, %v6 : f32
    %v21 = arith.addf %v20, %v8 : f32
    %v22 = arith.addf %v21, %v10 : f32
    %v23 = arith.addf %v22, %v12 : f32
    %v24 = arith.addf %v23, %v14 : f32
    %v25 = arith.addf %v24, %v16 : f32
    %v26 = arith.addf %v25, %v18 : f32
    img.yield %v26 : f32
  }
  %b_out = img.downsample %b_dn factor [2, 2] mode average : !img.frame<540x960x1xf32> -> !img.frame<270x480x1xf32>
  func.return %r_out, %g_out, %b_out : !img.frame<270x480x1xf32>, !img.frame<270x480x1xf32>, !img.frame<270x480x1xf32>
}
