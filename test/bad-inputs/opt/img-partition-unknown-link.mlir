// CMD: tessel-opt %s -p img-partition{link="carrier-pigeon"} -o %o
// ERROR: unknown link 'carrier-pigeon'
func.func @cam() {
  %s = img.source {fps = 1.0 : f64} : !img.stream<8x8x1xui8>
  img.sink %s : !img.stream<8x8x1xui8>
  func.return
}
