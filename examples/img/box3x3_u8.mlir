// box3x3 (u8, 1080x1920): box3x3
func.func @box3x3(%x: !img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xui8> {
  %y = img.stencil %x window [3, 3] border clamp : (!img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xui8> {
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
    %v10 = arith.addi %v1, %v2 : i16
    %v11 = arith.addi %v10, %v3 : i16
    %v12 = arith.addi %v11, %v4 : i16
    %v13 = arith.addi %v12, %v5 : i16
    %v14 = arith.addi %v13, %v6 : i16
    %v15 = arith.addi %v14, %v7 : i16
    %v16 = arith.addi %v15, %v8 : i16
    %v17 = arith.addi %v16, %v9 : i16
    %v18 = arith.constant 4 : i16
    %v19 = arith.addi %v17, %v18 : i16
    %v20 = arith.constant 9 : i16
    %v21 = arith.divui %v19, %v20 : i16
    %v22 = arith.trunci %v21 : i16 to i8
    img.yield %v22 : i8
  }
  func.return %y : !img.frame<1080x1920x1xui8>
}
