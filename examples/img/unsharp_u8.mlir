// unsharp (u8, 1080x1920): x + (x - gauss(x)) = 2x - blur, clamped to the range (u8: [0, 255], f32: [0, 1]).
func.func @unsharp(%x: !img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xui8> {
  %blur_h = img.stencil %x window [1, 3] border clamp : (!img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xui16> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    %v1 = arith.extui %p0 : i8 to i16
    %v2 = arith.extui %p1 : i8 to i16
    %v3 = arith.extui %p2 : i8 to i16
    %v4 = arith.constant 2 : i16
    %v5 = arith.muli %v2, %v4 : i16
    %v6 = arith.addi %v1, %v5 : i16
    %v7 = arith.addi %v6, %v3 : i16
    img.yield %v7 : i16
  }
  %blur = img.stencil %blur_h window [3, 1] border clamp : (!img.frame<1080x1920x1xui16>) -> !img.frame<1080x1920x1xui8> {
  ^bb0(%p0: i16, %p1: i16, %p2: i16):
    %v1 = arith.constant 2 : i16
    %v2 = arith.muli %p1, %v1 : i16
    %v3 = arith.addi %p0, %v2 : i16
    %v4 = arith.addi %v3, %p2 : i16
    %v5 = arith.constant 8 : i16
    %v6 = arith.addi %v4, %v5 : i16
    %v7 = arith.constant 4 : i16
    %v8 = arith.shrui %v6, %v7 : i16
    %v9 = arith.trunci %v8 : i16 to i8
    img.yield %v9 : i8
  }
  %y = img.map %x, %blur : (!img.frame<1080x1920x1xui8>, !img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xui8> {
  ^bb0(%p0: i8, %p1: i8):
    %v1 = arith.extui %p0 : i8 to i16
    %v2 = arith.extui %p1 : i8 to i16
    %v3 = arith.addi %v1, %v1 : i16
    %v4 = arith.subi %v3, %v2 : i16
    %v5 = arith.constant 0 : i16
    %v6 = arith.maxsi %v4, %v5 : i16
    %v7 = arith.constant 255 : i16
    %v8 = arith.minsi %v6, %v7 : i16
    %v9 = arith.trunci %v8 : i16 to i8
    img.yield %v9 : i8
  }
  func.return %y : !img.frame<1080x1920x1xui8>
}
