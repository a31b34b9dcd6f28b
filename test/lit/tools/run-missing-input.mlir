// tessel-run --inputs without the model's input, or with a name the model lacks.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/other.npz', b=np.zeros((2, 3), np.float32))"
// RUN: not %tessel-run %s --inputs %t/other.npz 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s --check-prefix=UNKNOWN
// RUN: %python -c "import numpy as np; np.savez('%t/only-a.npz', a=np.zeros((2, 3), np.float32))"
// RUN: not %tessel-run %s --inputs %t/only-a.npz 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s

// UNKNOWN:      lines: 1
// UNKNOWN-NEXT: {{^}}tessel-run: error: {{.*}}other.npz: no model input named b (inputs: a, b_in){{$}}
// UNKNOWN-NOT:  Traceback

// CHECK:      lines: 1
// CHECK-NEXT: {{^}}tessel-run: error: {{.*}}only-a.npz: input 'b_in' is missing{{$}}
// CHECK-NOT:  Traceback

func.func @main(%a: tensor<2x3xf32> {tg.name = "a"}, %b: tensor<2x3xf32> {tg.name = "b_in"}) -> (tensor<2x3xf32> {tg.name = "sum"}) {
  %s = tg.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %s : tensor<2x3xf32>
}
