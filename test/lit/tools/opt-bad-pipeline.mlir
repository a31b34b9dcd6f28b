// A pipeline that does not parse: one line quoting the pipeline, exit 1.

// RUN: not %tessel-opt %s -p 'cse{' 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s
// RUN: not %tessel-opt %s -p ',,' 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s --check-prefix=EMPTY
// RUN: not %tessel-opt %s -p 'cse}' 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s --check-prefix=BRACE
// RUN: not %tessel-opt %s -p 'cse{foo=1}' 2>&1 | filecheck %s --check-prefix=OPTION

// OPTION: {{^}}tessel-opt: error: bad pass pipeline 'cse{foo=1}': Provided arguments ["foo"] not found in expected arguments []{{$}}

// CHECK:      lines: 1
// CHECK-NEXT: {{^}}tessel-opt: error: bad pass pipeline 'cse{': Expected argument name here{{$}}
// CHECK-NOT:  Traceback

// EMPTY:      lines: 1
// EMPTY-NEXT: {{^}}tessel-opt: error: bad pass pipeline ',,': Expected pass name here{{$}}
// EMPTY-NOT:  Traceback

// BRACE:      lines: 1
// BRACE-NEXT: {{^}}tessel-opt: error: bad pass pipeline 'cse}': Expected a comma or pass arguments here{{$}}
// BRACE-NOT:  Traceback

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
