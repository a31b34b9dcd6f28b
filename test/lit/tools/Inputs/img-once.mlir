func.func @once(%k: !img.frame<4x6x1xui8>) {
  %k2 = img.map %k : (!img.frame<4x6x1xui8>) -> !img.frame<4x6x1xui8> {
  ^bb0(%v: i8):
    %r = arith.muli %v, %v : i8
    img.yield %r : i8
  }
  %s = img.source {fps = 5 : f64} : !img.stream<4x6x1xui8>
  %d = img.map %s, %k2 : (!img.stream<4x6x1xui8>, !img.frame<4x6x1xui8>) -> !img.stream<4x6x1xui8> {
  ^bb0(%a: i8, %b: i8):
    %r = arith.xori %a, %b : i8
    img.yield %r : i8
  }
  img.sink %d : !img.stream<4x6x1xui8>
  func.return
}
