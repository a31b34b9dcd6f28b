// tessel-translate --target seal-cpp on a program whose hev.params is not a parameter set's
// name: one line at the program, exit 1. (A program without hev.params gets the set
// he-select-parameters would choose: cpp.mlir.)

// RUN: not %tessel-translate %s --target seal-cpp 2>&1 | filecheck %s
// CHECK: cpp-errors.mlir:[[# @LINE + 7]]:1: error: @blur_prog: hev.params must name a parameter set, got 8192 : i64

func.func @blur(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.spec} {
  %up = hev.spec.shift %x by -4 : !hev.vec<16>
  %s0 = hev.spec.add %x, %up : !hev.vec<16>
  func.return %s0 : !hev.vec<16>
}
func.func @blur_prog(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.implements = @blur, hev.params = 8192 : i64} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %r0 = hev.rotate %c by 12 : !hev.ct<16>
  %s0 = hev.add %c, %r0 : !hev.ct<16>
  %out = hev.decrypt %s0 : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}
