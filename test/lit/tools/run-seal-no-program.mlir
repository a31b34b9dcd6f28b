// A module with specs only: say how to get a program.
// RUN: not %tessel-run %s --target seal 2>&1 | filecheck %s
// CHECK: tessel-run: error: {{.*}}run-seal-no-program.mlir has no hev program (a function with hev.implements); synthesize one: tessel-opt {{.*}}run-seal-no-program.mlir -p he-synthesize

// A parameter set whose rows are too short for the vectors.
// RUN: not %tessel-run %examples/he/box_blur.mlir --target seal --entry box_blur_baseline --params n4096-q109 2>&1 | filecheck %s --check-prefix=FIT
// FIT: tessel-run: error: 4096-slot vectors do not fit N=4096, q=36+36+37 bits (109) (2048 slots per row)

func.func @k(%x: !hev.vec<4>) -> !hev.vec<4> attributes {hev.spec} {
  %s = hev.spec.add %x, %x : !hev.vec<4>
  func.return %s : !hev.vec<4>
}
