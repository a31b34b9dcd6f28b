// 3x3 box blur on an 8-bit grey image, rounded to nearest: (sum + 4) / 9.
func.func @box3x3(%in: !img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xui8> {
  %out = img.stencil %in window [3, 3] border clamp : (!img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    %w0 = arith.extui %p0 : i8 to i16
    %w1 = arith.extui %p1 : i8 to i16
    %w2 = arith.extui %p2 : i8 to i16
    %w3 = arith.extui %p3 : i8 to i16
    %w4 = arith.extui %p4 : i8 to i16
    %w5 = arith.extui %p5 : i8 to i16
    %w6 = arith.extui %p6 : i8 to i16
    %w7 = arith.extui %p7 : i8 to i16
    %w8 = arith.extui %p8 : i8 to i16
    %s1 = arith.addi %w0, %w1 : i16
    %s2 = arith.addi %s1, %w2 : i16
    %s3 = arith.addi %s2, %w3 : i16
    %s4 = arith.addi %s3, %w4 : i16
    %s5 = arith.addi %s4, %w5 : i16
    %s6 = arith.addi %s5, %w6 : i16
    %s7 = arith.addi %s6, %w7 : i16
    %s8 = arith.addi %s7, %w8 : i16
    %four = arith.constant 4 : i16
    %nine = arith.constant 9 : i16
    %r = arith.addi %s8, %four : i16
    %q = arith.divui %r, %nine : i16
    %b = arith.trunci %q : i16 to i8
    img.yield %b : i8
  }
  func.return %out : !img.frame<1080x1920x1xui8>
}
