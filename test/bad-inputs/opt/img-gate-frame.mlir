// CMD: tessel-opt %s -o %o
// ERROR: !img.frame<8x8x1xui8> should be of base attribute img.stream
func.func @f(%x: !img.frame<8x8x1xui8>, %p: !img.frame<1x1x1xui8>) {
  %g = img.gate %x, %p {pass_rate = 0.5 : f64} : !img.frame<8x8x1xui8>, !img.frame<1x1x1xui8> -> !img.frame<8x8x1xui8>
  func.return
}
