// CMD: tessel-opt %s -o %o
// ERROR: 'img.crop' op roi [6, 0, 4, 4] is not inside the 8x8 frame
func.func @e(%x: !img.frame<8x8x1xui8>) {
  %c = img.crop %x roi [6, 0, 4, 4] : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return
}
