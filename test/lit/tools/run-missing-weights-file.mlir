// tessel-run on a module whose tg.weights attribute names a file that does not exist
// (the path is relative to this IR file; nothing is written beside it).

// RUN: not %tessel-run %s 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s

// CHECK:      lines: 1
// CHECK-NEXT: {{^}}tessel-run: error: cannot read weights {{.*}}tools{{/|\\}}no-such-weights.npz: No such file or directory{{$}}
// CHECK-NOT:  Traceback

builtin.module attributes {tg.weights = "no-such-weights.npz"} {
  func.func @main(%x: tensor<2x20xf32> {tg.name = "x"}) -> (tensor<2x20xf32> {tg.name = "y"}) {
    %w = tg.weight @w : tensor<2x20xf32>
    %y = tg.add %x, %w : (tensor<2x20xf32>, tensor<2x20xf32>) -> tensor<2x20xf32>
    func.return %y : tensor<2x20xf32>
  }
}
