// box3x3 (f32, 1080x1920): box3x3
func.func @box3x3(%x: !img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  %y = img.stencil %x window [3, 3] border clamp : (!img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  ^bb0(%p0: f32, %p1: f32, %p2: f32, %p3: f32, %p4: f32, %p5: f32, %p6: f32, %p7: f32, %p8: f32):
    %v1 = arith.addf %p0, %p1 : f32
    %v2 = arith.addf %v1, %p2 : f32
    %v3 = arith.addf %v2, %p3 : f32
    %v4 = arith.addf %v3, %p4 : f32
    %v5 = arith.addf %v4, %p5 : f32
    %v6 = arith.addf %v5, %p6 : f32
    %v7 = arith.addf %v6, %p7 : f32
    %v8 = arith.addf %v7, %p8 : f32
    %v9 = arith.constant 1.111111111e-01 : f32
    %v10 = arith.mulf %v8, %v9 : f32
    img.yield %v10 : f32
  }
  func.return %y : !img.frame<1080x1920x1xf32>
}
