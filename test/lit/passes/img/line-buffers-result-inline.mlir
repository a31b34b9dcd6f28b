// RUN: not %tessel-opt %s -p img-line-buffers 2>&1 | filecheck %s

// CHECK: line-buffers-result-inline.mlir:5:3: error: img.map is a result of the function, so it cannot be computed inline
func.func @result(%x: !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  %m = img.map %x {img.compute = #img<compute inline>} : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%a: i8):
    img.yield %a : i8
  }
  func.return %m : !img.frame<8x8x1xui8>
}
