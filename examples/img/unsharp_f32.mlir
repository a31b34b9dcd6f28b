// unsharp (f32, 1080x1920): x + (x - gauss(x)) = 2x - blur, clamped to the range (u8: [0, 255], f32: [0, 1]).
func.func @unsharp(%x: !img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  %blur_h = img.stencil %x window [1, 3] border clamp : (!img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  ^bb0(%p0: f32, %p1: f32, %p2: f32):
    %v1 = arith.constant 2.500000000e-01 : f32
    %v2 = arith.mulf %p0, %v1 : f32
    %v3 = arith.constant 5.000000000e-01 : f32
    %v4 = arith.mulf %p1, %v3 : f32
    %v5 = arith.constant 2.500000000e-01 : f32
    %v6 = arith.mulf %p2, %v5 : f32
    %v7 = arith.addf %v2, %v4 : f32
    %v8 = arith.addf %v7, %v6 : f32
    img.yield %v8 : f32
  }
  %blur = img.stencil %blur_h window [3, 1] border clamp : (!img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  ^bb0(%p0: f32, %p1: f32, %p2: f32):
    %v1 = arith.constant 2.500000000e-01 : f32
    %v2 = arith.mulf %p0, %v1 : f32
    %v3 = arith.constant 5.000000000e-01 : f32
    %v4 = arith.mulf %p1, %v3 : f32
    %v5 = arith.constant 2.500000000e-01 : f32
    %v6 = arith.mulf %p2, %v5 : f32
    %v7 = arith.addf %v2, %v4 : f32
    %v8 = arith.addf %v7, %v6 : f32
    img.yield %v8 : f32
  }
  %y = img.map %x, %blur : (!img.frame<1080x1920x1xf32>, !img.frame<1080x1920x1xf32>) -> !img.frame<1080x1920x1xf32> {
  ^bb0(%p0: f32, %p1: f32):
    %v1 = arith.addf %p0, %p0 : f32
    %v2 = arith.subf %v1, %p1 : f32
    %v3 = arith.constant 0.000000000e+00 : f32
    %v4 = arith.maximumf %v2, %v3 : f32
    %v5 = arith.constant 1.000000000e+00 : f32
    %v6 = arith.minimumf %v4, %v5 : f32
    img.yield %v6 : f32
  }
  func.return %y : !img.frame<1080x1920x1xf32>
}
