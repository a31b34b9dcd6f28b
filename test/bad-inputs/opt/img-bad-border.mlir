// CMD: tessel-opt %s -o %o
// ERROR: Expected `clamp`, `zero`, or `mirror`.
func.func @b(%x: !img.frame<8x8x1xui8>) {
  %s = img.stencil %x window [3, 3] border wrap : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    img.yield %p4 : i8
  }
  func.return
}
