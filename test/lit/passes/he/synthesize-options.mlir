// Options and progress of he-synthesize.

// RUN: rm -rf %t && mkdir -p %t
// Progress lines go to stderr: the search, each length, the verdict, the exact check.
// RUN: %tessel-opt %s -p 'he-synthesize{costs="%S/Inputs/costs.json"}' > %t/out.mlir 2> %t/progress
// RUN: filecheck %s --check-prefix=PROGRESS --input-file %t/progress
// PROGRESS:      he-synthesize: @add3 [{{ *[0-9.]+}}s] depth <= 0, lengths 2..8, 1 ops (add), rotations [1, -1, 2, -2]
// PROGRESS:      he-synthesize: @add3 [{{ *[0-9.]+}}s] length 2: searching
// PROGRESS:      he-synthesize: @add3 [{{ *[0-9.]+}}s] length 2: found cost {{[0-9]+}} (2 rot, 0 mul, 0 mul_plain); tightening
// PROGRESS:      he-synthesize: @add3 [{{ *[0-9.]+}}s] length 2: no program with cost <= {{[0-9]+}}
// PROGRESS-NEXT: he-synthesize: @add3: 2 operations, cost {{[0-9]+}} us at {{n[0-9]+-q[0-9x]+}}, optimal (proven), {{[0-9.]+}} s, {{[0-9]+}} z3 queries, {{[0-9]+}} examples
// PROGRESS-NEXT: he-synthesize: @add3: verified exactly mod 65537 at 8 output slots ({{[0-9.]+}} s)

// A budget too small for anything: a clear error, exit 1.
// RUN: not %tessel-opt %s -p 'he-synthesize{costs="%S/Inputs/costs.json" budget=0.000001 progress=false}' 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=BUDGET
// BUDGET:      lines: 1
// BUDGET-NEXT: synthesize-options.mlir:[[# @LINE + 10]]:1: error: he-synthesize: no program for @add3 within the budget of 1e-06 s (lengths up to 1 have none); raise budget

// kernel=NAME picks one spec; an unknown one is an error.
// RUN: not %tessel-opt %s -p 'he-synthesize{kernel=nope}' 2>&1 | filecheck %s --check-prefix=KERNEL
// KERNEL: tessel-opt: error: he-synthesize: no spec function @nope in the module

// Bad option values.
// RUN: not %tessel-opt %s -p 'he-synthesize{max-length=0}' 2>&1 | filecheck %s --check-prefix=OPTS
// OPTS: tessel-opt: error: he-synthesize: budget must be > 0, max-length >= 1 and width in 2..32

func.func @add3(%x: !hev.vec<8>) -> !hev.vec<8> attributes {hev.spec} {
  %l = hev.spec.shift %x by -1 : !hev.vec<8>
  %r = hev.spec.shift %x by 1 : !hev.vec<8>
  %s = hev.spec.add %l, %x : !hev.vec<8>
  %t = hev.spec.add %s, %r : !hev.vec<8>
  func.return %t : !hev.vec<8>
}
