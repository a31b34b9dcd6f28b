// RUN: not %tessel-opt %s -p img-line-buffers 2>&1 | filecheck %s

// CHECK: line-buffers-unsupported.mlir:5:3: error: img.scan is not a row-streamed stage (those are: img.map, img.stencil, img.lut, img.downsample, img.crop, img.extract, img.merge); the CPU target runs it as a whole-frame kernel between row pipelines
func.func @scan(%x: !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xi32> {
  %s = img.scan %x : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi32>
  func.return %s : !img.frame<8x8x1xi32>
}
