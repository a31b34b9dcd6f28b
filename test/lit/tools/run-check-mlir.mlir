// tessel-run --check needs an ONNX model to compare with; on tg IR it is an error.

// RUN: rm -rf %t && mkdir -p %t
// RUN: not %tessel-run %s --check 2>%t/stderr
// RUN: %python %S/Inputs/count_lines.py < %t/stderr | filecheck %s

// CHECK:      lines: 1
// CHECK-NEXT: {{^}}tessel-run: error: --check compares with the ONNX oracles; give an .onnx model{{$}}

func.func @main(%x: tensor<2x3xf32> {tg.name = "x"}) -> (tensor<2x3xf32> {tg.name = "y"}) {
  %y = tg.relu %x : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
