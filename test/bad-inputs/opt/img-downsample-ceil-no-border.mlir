// CMD: tessel-opt %s -o %o
// ERROR: 'img.downsample' op rounding ceil averages partial blocks of the 7x9 frame: say their `border` (clamp, zero or mirror)
func.func @f(%x: !img.frame<7x9x1xui8>) {
  %d = img.downsample %x factor [2, 2] mode average rounding ceil : !img.frame<7x9x1xui8> -> !img.frame<4x5x1xui8>
  func.return
}
