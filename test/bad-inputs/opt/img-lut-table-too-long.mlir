// CMD: tessel-opt %s -o %o
// ERROR: 'img.lut' op table has 300 entries; a ui8 index reads 1..256
func.func @f(%x: !img.frame<8x8x1xui8>) {
  %l = img.lut %x table(dense<3> : tensor<300xi16>) : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi16>
  func.return
}
