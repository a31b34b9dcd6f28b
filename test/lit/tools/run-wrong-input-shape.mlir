// tessel-run --inputs with an array of the wrong shape, or of the wrong element type.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/shape.npz', x=np.zeros((3, 2), np.float32))"
// RUN: not %tessel-run %s --inputs %t/shape.npz 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s
// RUN: %python -c "import numpy as np; np.savez('%t/dtype.npz', x=np.zeros((2, 3), np.float64))"
// RUN: not %tessel-run %s --inputs %t/dtype.npz 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s --check-prefix=DTYPE

// CHECK:      lines: 1
// CHECK-NEXT: {{^}}tessel-run: error: {{.*}}shape.npz: input 'x' is float32[3, 2], the model takes float32[2, 3]{{$}}
// CHECK-NOT:  Traceback

// DTYPE:      lines: 1
// DTYPE-NEXT: {{^}}tessel-run: error: {{.*}}dtype.npz: input 'x' is float64[2, 3], the model takes float32[2, 3]{{$}}
// DTYPE-NOT:  Traceback

func.func @main(%x: tensor<2x3xf32> {tg.name = "x"}) -> (tensor<2x3xf32> {tg.name = "y"}) {
  %y = tg.relu %x : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
