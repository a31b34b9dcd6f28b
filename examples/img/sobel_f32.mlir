// sobel (f32, 1080x1920): |gx| + |gy| saturated to 255 (u8), sqrt(gx^2 + gy^2) (f32).
func.func @sobel(%x: !img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  %gx = img.stencil %x window [3, 3] border clamp : (!img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  ^bb0(%p0: f32, %p1: f32, %p2: f32, %p3: f32, %p4: f32, %p5: f32, %p6: f32, %p7: f32, %p8: f32):
    %v1 = arith.constant -1.000000000e+00 : f32
    %v2 = arith.mulf %p0, %v1 : f32
    %v3 = arith.constant -2.000000000e+00 : f32
    %v4 = arith.mulf %p3, %v3 : f32
    %v5 = arith.constant 2.000000000e+00 : f32
    %v6 = arith.mulf %p5, %v5 : f32
    %v7 = arith.constant -1.000000000e+00 : f32
    %v8 = arith.mulf %p6, %v7 : f32
    %v9 = arith.addf %v2, %p2 : f32
    %v10 = arith.addf %v9, %v4 : f32
    %v11 = arith.addf %v10, %v6 : f32
    %v12 = arith.addf %v11, %v8 : f32
    %v13 = arith.addf %v12, %p8 : f32
    img.yield %v13 : f32
  }
  %gy = img.stencil %x window [3, 3] border clamp : (!img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  ^bb0(%p0: f32, %p1: f32, %p2: f32, %p3: f32, %p4: f32, %p5: f32, %p6: f32, %p7: f32, %p8: f32):
    %v1 = arith.constant -1.000000000e+00 : f32
    %v2 = arith.mulf %p0, %v1 : f32
    %v3 = arith.constant -2.000000000e+00 : f32
    %v4 = arith.mulf %p1, %v3 : f32
    %v5 = arith.constant -1.000000000e+00 : f32
    %v6 = arith.mulf %p2, %v5 : f32
    %v7 = arith.constant 2.000000000e+00 : f32
    %v8 = arith.mulf %p7, %v7 : f32
    %v9 = arith.addf %v2, %v4 : f32
    %v10 = arith.addf %v9, %v6 : f32
    %v11 = arith.addf %v10, %p6 : f32
    %v12 = arith.addf %v11, %v8 : f32
    %v13 = arith.addf %v12, %p8 : f32
    img.yield %v13 : f32
  }
  %y = img.map %gx, %gy : (!img.frame<1080x1920x1xf32>, !img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  ^bb0(%p0: f32, %p1: f32):
    %v1 = arith.mulf %p0, %p0 : f32
    %v2 = arith.mulf %p1, %p1 : f32
    %v3 = arith.addf %v1, %v2 : f32
    %v4 = math.sqrt %v3 : f32
    img.yield %v4 : f32
  }
  func.return %y : !img.frame<1080x1920x1xf32>
}
