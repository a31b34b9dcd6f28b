// Options and progress of he-synthesize.

// RUN: rm -rf %t && mkdir -p %t
// Progress lines go to stderr: the search, the structured program it starts from, each
// length, the verdict, the exact check.
// RUN: %tessel-opt %s -p 'he-synthesize{costs="%S/Inputs/costs.json"}' > %t/out.mlir 2> %t/progress
// RUN: filecheck %s --check-prefix=PROGRESS --input-file %t/progress
// A 3-tap stencil: the structured program (rotate-and-add, 2 rotations) meets the lower
// bound (two rotations are needed to read three slots), so z3 is not asked at all.
// PROGRESS:      he-synthesize: @add3 [{{ *[0-9.]+}}s] depth <= 0, lengths 2..8, 1 ops (add), rotations [1, -1, 2, -2]
// PROGRESS-NEXT: he-synthesize: @add3 [{{ *[0-9.]+}}s] structured program: 2 operations, cost [[COST:[0-9]+]] (2 rot, 0 mul, 0 mul_plain)
// PROGRESS-NEXT: he-synthesize: @add3 [{{ *[0-9.]+}}s] length 2: no program can cost less than [[COST]]; the best is optimal
// PROGRESS-NEXT: he-synthesize: @add3: 2 operations, cost [[COST]]0 us at {{n[0-9]+-q[0-9x]+}}, optimal (proven: the lower bound meets it), {{[0-9.]+}} s, 0 z3 queries, {{[0-9]+}} examples
// PROGRESS-NEXT: he-synthesize: @add3: verified exactly mod 65537 at 8 output slots (1 expanded, the others alike by rotation; {{[0-9.]+}} s)
// a*b + a*c: the structured program factors it by the Horner scheme, a*(b + c) (1 product);
// z3 proves nothing cheaper has at most 2 operations (the search stops one length after its
// best program: extra-length=0).
// PROGRESS:      he-synthesize: @distribute [{{ *[0-9.]+}}s] structured program: 2 operations, cost [[BEST:[0-9]+]] (0 rot, 1 mul, 0 mul_plain)
// PROGRESS-NEXT: he-synthesize: @distribute [{{ *[0-9.]+}}s] length 2: searching for cost <= {{[0-9]+}}
// PROGRESS-NEXT: he-synthesize: @distribute [{{ *[0-9.]+}}s] length 2: no program with cost <= {{[0-9]+}}
// PROGRESS-NEXT: he-synthesize: @distribute: 2 operations, cost [[BEST]]0 us at {{n[0-9]+-q[0-9x]+}}, optimal among programs of at most 2 operations (proven), {{[0-9.]+}} s, 1 z3 queries, {{[0-9]+}} examples
// Exclusive or on bits, a + b - 2ab: on 0/1 inputs a completed square, (a - b)^2, which the
// structured program computes with one square; z3 rules out one operation, then the bounds
// close.
// PROGRESS:      he-synthesize: @xor [{{ *[0-9.]+}}s] structured program: 2 operations, cost [[XOR:[0-9]+]] (0 rot, 1 mul, 0 mul_plain)
// PROGRESS-NEXT: he-synthesize: @xor [{{ *[0-9.]+}}s] length 1: searching for cost <= {{[0-9]+}}
// PROGRESS-NEXT: he-synthesize: @xor [{{ *[0-9.]+}}s] length 1: no program with cost <= {{[0-9]+}}
// PROGRESS-NEXT: he-synthesize: @xor [{{ *[0-9.]+}}s] length 2: no program can cost less than [[XOR]]; the best is optimal
// RUN: filecheck %s --check-prefix=OUT --input-file %t/out.mlir
// OUT-LABEL: func.func @distribute_synth
// OUT-NEXT:    %a_ct = hev.encrypt %a
// OUT-NEXT:    %b_ct = hev.encrypt %b
// OUT-NEXT:    %c_ct = hev.encrypt %c
// OUT-NEXT:    %v0 = hev.add {{%b_ct, %c_ct|%c_ct, %b_ct}}
// OUT-NEXT:    %v1 = hev.multiply {{%a_ct, %v0|%v0, %a_ct}}
// OUT-NEXT:    %v1_relin = hev.relinearize %v1
// OUT-LABEL: func.func @xor_synth
// OUT-NEXT:    %a_ct = hev.encrypt %a
// OUT-NEXT:    %b_ct = hev.encrypt %b
// OUT-NEXT:    %v0 = hev.sub %a_ct, %b_ct
// OUT-NEXT:    %v1 = hev.multiply %v0, %v0
// OUT-NEXT:    %v1_relin = hev.relinearize %v1

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

func.func @distribute(%a: !hev.vec<4>, %b: !hev.vec<4>, %c: !hev.vec<4>) -> !hev.vec<4> attributes {hev.spec} {
  %ab = hev.spec.mul %a, %b : !hev.vec<4>
  %ac = hev.spec.mul %a, %c : !hev.vec<4>
  %s = hev.spec.add %ab, %ac : !hev.vec<4>
  func.return %s : !hev.vec<4>
}

func.func @xor(%a: !hev.vec<4> {hev.domain = #hev<domain bits>}, %b: !hev.vec<4> {hev.domain = #hev<domain bits>}) -> !hev.vec<4> attributes {hev.spec} {
  %s = hev.spec.add %a, %b : !hev.vec<4>
  %p = hev.spec.mul %a, %b : !hev.vec<4>
  %two = hev.spec.const 2 : !hev.vec<4>
  %d = hev.spec.mul %two, %p : !hev.vec<4>
  %x = hev.spec.sub %s, %d : !hev.vec<4>
  func.return %x : !hev.vec<4>
}
