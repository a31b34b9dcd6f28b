// CMD: tessel-opt %s -o %o
// ERROR: 'img.downsample' op factor 2x2 must divide the 7x9 frame, or say `rounding floor` or `rounding ceil`
func.func @f(%x: !img.frame<7x9x1xui8>) {
  %d = img.downsample %x factor [2, 2] mode average : !img.frame<7x9x1xui8> -> !img.frame<3x4x1xui8>
  func.return
}
