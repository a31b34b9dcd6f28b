// RUN: not %tessel-opt %s --split-input-file -p img-line-buffers 2>&1 | filecheck %s

// CHECK: line-buffers-invalid.mlir:6:3: error: img.stencil is read by a zero-border img.stencil, which reads 0 outside the frame, not the producer at clamped positions; it cannot be computed inline
// CHECK-NOT: error
func.func @zero_border_inline(%x: !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  %s = img.stencil %x window [1, 3] border clamp {img.compute = #img<compute inline>} : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    img.yield %p0 : i8
  }
  %y = img.stencil %s window [3, 1] border zero : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8):
    img.yield %p2 : i8
  }
  func.return %y : !img.frame<8x8x1xui8>
}
