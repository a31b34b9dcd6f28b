// An unknown pass name: one line with the closest registered names, exit 1.

// RUN: not %tessel-opt %s -p cse,canonicalise 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s
// RUN: not %tessel-opt %s -p no-such-pass-at-all 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s --check-prefix=NOHINT

// CHECK:      lines: 1
// CHECK-NEXT: {{^}}tessel-opt: error: unknown pass 'canonicalise' (did you mean canonicalize{{.*}}?); `tessel-opt --help` lists the passes{{$}}
// CHECK-NOT:  Traceback

// NOHINT:      lines: 1
// NOHINT-NEXT: {{^}}tessel-opt: error: unknown pass 'no-such-pass-at-all'; `tessel-opt --help` lists the passes{{$}}
// NOHINT-NOT:  Traceback

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
