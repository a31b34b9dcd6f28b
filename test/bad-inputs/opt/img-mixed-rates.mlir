// CMD: tessel-opt %s -p img-rates -o %o
// ERROR: img.map combines values at different rates (15 fps and 30 fps)
func.func @mixed() {
  %s = img.source {fps = 30.0 : f64} : !img.stream<8x8x1xui8>
  %r = img.reduce %s kind max : !img.stream<8x8x1xui8> -> !img.stream<1x1x1xui8>
  %g = img.gate %s, %r {pass_rate = 0.5 : f64} : !img.stream<8x8x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<8x8x1xui8>
  %m = img.map %g, %s : (!img.stream<8x8x1xui8>, !img.stream<8x8x1xui8>) -> !img.stream<8x8x1xui8> {
  ^bb0(%a: i8, %b: i8):
    img.yield %a : i8
  }
  func.return
}
