// tessel-run --time-passes: where the compile time went, one row per stage in pipeline
// order (import, every pass, with --verify-each the IR verification after them, LLVM
// emission, the JIT (each stage its own LLVM module, compiled in parallel, from the moment
// kernel-to-loops makes it: parsing, O3 and machine code or the object cache's load; the row
// is the wait after the lowering), the executor's plan), then the total and how the JIT went. The reference target compiles nothing: there the flag is a one-line error.

// RUN: %tessel-run %s --target cpu --time-passes | filecheck %s
// CHECK:      {{^}}stage {{ +}}seconds {{ +}}share{{$}}
// CHECK-NEXT: {{^}}import {{ +[0-9.]+ +[0-9.]+%$}}
// CHECK-NEXT: {{^}}tg-qdq-to-integer {{ +[0-9.]+ +[0-9.]+%$}}
// CHECK:      {{^}}tg-fuse {{ +[0-9.]+}}
// CHECK:      {{^}}tg-to-kernel {{ +[0-9.]+}}
// CHECK-NEXT: {{^}}kernel-simplify-indices {{ +[0-9.]+}}
// CHECK-NEXT: {{^}}kernel-to-loops {{ +[0-9.]+}}
// CHECK-NEXT: {{^}}llvm-emit {{ +[0-9.]+}}
// CHECK-NEXT: {{^}}llvm-jit {{ +[0-9.]+}}
// CHECK-NEXT: {{^}}executor-plan {{ +[0-9.]+}}
// CHECK-NEXT: {{^}}total {{ +[0-9.]+ +100.0%$}}
// CHECK-NEXT: {{^}}llvm-jit: 2 modules on {{[0-9]+}} threads (0 stages identical to another, compiled once; {{[0-2]}} modules from the object cache; {{[0-2]}} finished while the model was still being lowered){{$}}

// RUN: %tessel-run %s --target cpu --time-passes --verify-each | filecheck %s --check-prefix=EACH
// EACH:      {{^}}kernel-to-loops {{ +[0-9.]+}}
// EACH-NEXT: {{^}}verify {{ +[0-9.]+}}
// EACH-NEXT: {{^}}llvm-emit

// RUN: rm -rf %t && mkdir -p %t
// RUN: not %tessel-run %s --time-passes 2>%t/stderr
// RUN: %python %S/Inputs/count_lines.py < %t/stderr | filecheck %s --check-prefix=REF
// REF:      lines: 1
// REF-NEXT: {{^}}tessel-run: error: --time, --profile, --dump-ir, --records and --time-passes apply to compiled targets (--target cpu){{$}}

func.func @main(%x: tensor<2x3xf32> {tg.name = "x"}) -> (tensor<2x3xf32> {tg.name = "y"}) {
  %y = tg.relu %x : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
