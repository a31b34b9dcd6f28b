// CMD: tessel-opt %s -o %o
// ERROR: !img.frame of 100000x100000 has 10000000000 pixels, more than the 268435456 a frame may have
func.func @i(%x: !img.frame<100000x100000x1xui8>) {
  func.return
}
