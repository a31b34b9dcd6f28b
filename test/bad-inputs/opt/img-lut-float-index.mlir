// CMD: tessel-opt %s -o %o
// ERROR: 'img.lut' op indexes with ui8 or ui16 pixels, got f32
func.func @f(%x: !img.frame<8x8x1xf32>) {
  %l = img.lut %x table(dense<[1, 2]> : tensor<2xui8>) : !img.frame<8x8x1xf32> -> !img.frame<8x8x1xui8>
  func.return
}
