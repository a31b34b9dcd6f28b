// tessel-run --check on the reference target needs an ONNX model to compare with; on tg IR
// it is an error. Compiled for the CPU, tg IR is checked against the reference semantics.

// RUN: rm -rf %t && mkdir -p %t
// RUN: not %tessel-run %s --check 2>%t/stderr
// RUN: %python %S/Inputs/count_lines.py < %t/stderr | filecheck %s

// CHECK:      lines: 1
// CHECK-NEXT: {{^}}tessel-run: error: --check compares the reference target with the ONNX oracles; give an .onnx model{{$}}

// RUN: %tessel-run %s --target cpu --check | filecheck %s --check-prefix=CPU
// CPU: check against the reference semantics: OK  max abs error 0,

func.func @main(%x: tensor<2x3xf32> {tg.name = "x"}) -> (tensor<2x3xf32> {tg.name = "y"}) {
  %y = tg.relu %x : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
