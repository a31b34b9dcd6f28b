// sobel (u8, 1080x1920): |gx| + |gy| saturated to 255 (u8), sqrt(gx^2 + gy^2) (f32).
func.func @sobel(%x: !img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xui8> {
  %gx = img.stencil %x window [3, 3] border clamp : (!img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xi16> {
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
    %v10 = arith.constant -1 : i16
    %v11 = arith.muli %v1, %v10 : i16
    %v12 = arith.constant -2 : i16
    %v13 = arith.muli %v4, %v12 : i16
    %v14 = arith.constant 2 : i16
    %v15 = arith.muli %v6, %v14 : i16
    %v16 = arith.constant -1 : i16
    %v17 = arith.muli %v7, %v16 : i16
    %v18 = arith.addi %v11, %v3 : i16
    %v19 = arith.addi %v18, %v13 : i16
    %v20 = arith.addi %v19, %v15 : i16
    %v21 = arith.addi %v20, %v17 : i16
    %v22 = arith.addi %v21, %v9 : i16
    img.yield %v22 : i16
  }
  %gy = img.stencil %x window [3, 3] border clamp : (!img.frame<1080x1920x1xui8>) -> !img.frame<1080x1920x1xi16> {
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
    %v10 = arith.constant -1 : i16
    %v11 = arith.muli %v1, %v10 : i16
    %v12 = arith.constant -2 : i16
    %v13 = arith.muli %v2, %v12 : i16
    %v14 = arith.constant -1 : i16
    %v15 = arith.muli %v3, %v14 : i16
    %v16 = arith.constant 2 : i16
    %v17 = arith.muli %v8, %v16 : i16
    %v18 = arith.addi %v11, %v13 : i16
    %v19 = arith.addi %v18, %v15 : i16
    %v20 = arith.addi %v19, %v7 : i16
    %v21 = arith.addi %v20, %v17 : i16
    %v22 = arith.addi %v21, %v9 : i16
    img.yield %v22 : i16
  }
  %y = img.map %gx, %gy : (!img.frame<1080x1920x1xi16>, !img.frame<1080x1920x1xi16>) -> !img.frame<1080x1920x1xui8> {
  ^bb0(%p0: i16, %p1: i16):
    %v1 = math.absi %p0 : i16
    %v2 = math.absi %p1 : i16
    %v3 = arith.addi %v1, %v2 : i16
    %v4 = arith.constant 255 : i16
    %v5 = arith.minui %v3, %v4 : i16
    %v6 = arith.trunci %v5 : i16 to i8
    img.yield %v6 : i8
  }
  func.return %y : !img.frame<1080x1920x1xui8>
}
