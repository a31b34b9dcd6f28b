// he-mod-switch: every operation as far down the modulus chain as the noise budget allows,
// hev.mod_switch where a value changes level (measured per-level costs: the cost table's
// `levels`).

// RUN: %tessel-opt %s -p 'he-mod-switch{costs="%S/Inputs/costs.json"}' | filecheck %s
// RUN: %tessel-opt %s -p 'he-mod-switch{costs="%S/Inputs/costs.json" margin=100.0}' | filecheck %s --check-prefix=MARGIN
// RUN: %tessel-opt %s -p 'he-mod-switch{costs="%S/Inputs/costs.json" params="n8192-q60x2"}' | filecheck %s --check-prefix=ONE
// RUN: not %tessel-opt %s -p 'he-mod-switch{margin=-1.0}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not %tessel-opt %s -p 'he-mod-switch{params="n8192-q99"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: %tessel-opt %s -p 'he-mod-switch{costs="%S/Inputs/costs.json"}' | %tessel-opt -p 'he-mod-switch{costs="%S/Inputs/costs.json"}' | filecheck %s
// NEGATIVE: tessel-opt: error: he-mod-switch: margin must be >= 0 bits
// UNKNOWN: error: unknown parameter set 'n8192-q99'

// The switched programs decrypt to the spec on SEAL at the parameters they were planned for.
// RUN: %tessel-opt %s -p 'he-mod-switch{costs="%S/Inputs/costs.json"}' > %t.mlir
// RUN: %tessel-run %t.mlir --target seal --reps 1 | filecheck %s --check-prefix=EXEC
// RUN: %tessel-translate %t.mlir --target seal-cpp | filecheck %s --check-prefix=CPP

// A depth-0 kernel at SEAL's default N=8192, 218-bit q (four data primes): the input is
// switched to the last level, where a rotation costs a fifth of the top level's.
// CHECK-LABEL: func.func @blur_prog
// CHECK-SAME: hev.mod_switch = {switches = 3 : i64, estimated_us = {{[0-9]+}} : i64, unswitched_us = {{[0-9]+}} : i64, optimal = true}
// CHECK-SAME: hev.params = "n8192-q218"
// CHECK-SAME: hev.noise_estimate = {{[0-9]+}} : i64
// CHECK-NEXT: %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
// CHECK-NEXT: %c_l1 = hev.mod_switch %c : !hev.ct<16> -> !hev.ct<16, level = 1>
// CHECK-NEXT: %c_l2 = hev.mod_switch %c_l1 : !hev.ct<16, level = 1> -> !hev.ct<16, level = 2>
// CHECK-NEXT: %c_l3 = hev.mod_switch %c_l2 : !hev.ct<16, level = 2> -> !hev.ct<16, level = 3>
// CHECK-NEXT: %r0 = hev.rotate %c_l3 by 12 : !hev.ct<16, level = 3>
// CHECK-NEXT: %s0 = hev.add %c_l3, %r0 : !hev.ct<16, level = 3>
// CHECK-NEXT: %out = hev.decrypt %s0 : !hev.ct<16, level = 3> -> !hev.vec<16>

// A program that already switches is left as it is.
// CHECK-LABEL: func.func @blur_switched
// CHECK-NOT: hev.mod_switch =
// CHECK: %c1 = hev.mod_switch %c
// CHECK-NOT: hev.mod_switch
// CHECK: func.return

// Depth 2: both multiplications where 28 bits each still fit (level 2 holds 62), the
// last product switched down before it is relinearized (relinearization is a key switch:
// cheaper one level lower).
// CHECK-LABEL: func.func @cube_prog
// CHECK:      %c_l2 = hev.mod_switch %c_l1 : !hev.ct<16, level = 1> -> !hev.ct<16, level = 2>
// CHECK-NEXT: %s3 = hev.multiply %c_l2, %c_l2 : !hev.ct<16, level = 2> -> !hev.ct<16, size = 3, level = 2>
// CHECK-NEXT: %s = hev.relinearize %s3 : !hev.ct<16, size = 3, level = 2> -> !hev.ct<16, level = 2>
// CHECK-NEXT: %k3 = hev.multiply %s, %c_l2 : !hev.ct<16, level = 2> -> !hev.ct<16, size = 3, level = 2>
// CHECK-NEXT: %k3_l3 = hev.mod_switch %k3 : !hev.ct<16, size = 3, level = 2> -> !hev.ct<16, size = 3, level = 3>
// CHECK-NEXT: %k = hev.relinearize %k3_l3 : !hev.ct<16, size = 3, level = 3> -> !hev.ct<16, level = 3>

// Asking for 100 bits: the depth-0 program stops at level 1 (106 fresh bits; level 2
// holds 62), the depth-2 one (94 bits left unswitched) has none to spare and stays at the top.
// MARGIN-LABEL: func.func @blur_prog
// MARGIN-SAME: hev.noise_estimate = 103 : i64
// MARGIN: %r0 = hev.rotate %c_l1 by 12 : !hev.ct<16, level = 1>
// MARGIN-LABEL: func.func @cube_prog
// MARGIN-NOT: hev.mod_switch
// MARGIN: func.return

// A one-level chain has nowhere to switch to.
// ONE-LABEL: func.func @blur_prog
// ONE-NOT: hev.mod_switch
// ONE-LABEL: func.func @blur_switched
// ONE-LABEL: func.func @cube_prog
// ONE-NOT: hev.mod_switch

// EXEC-DAG: @blur_prog: N=8192, q=43+43+44+44+44 bits (218), t=65537 (from hev.params); 1 add, 3 mod_switch, 1 rotate; depth 0
// EXEC-DAG: check against @blur: OK (16 slots)
// EXEC-DAG: @cube_prog: N=8192, q=43+43+44+44+44 bits (218), t=65537 (from hev.params); 2 multiply, 2 relinearize, 3 mod_switch; depth 2
// EXEC-DAG: check against @cube: OK (16 slots)
// CPP: evaluator.mod_switch_to_next(

func.func @blur(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.spec} {
  %up = hev.spec.shift %x by -4 : !hev.vec<16>
  %s0 = hev.spec.add %x, %up : !hev.vec<16>
  func.return %s0 : !hev.vec<16>
}

func.func @blur_prog(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.implements = @blur} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %r0 = hev.rotate %c by 12 : !hev.ct<16>
  %s0 = hev.add %c, %r0 : !hev.ct<16>
  %out = hev.decrypt %s0 : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}

func.func @blur_switched(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.implements = @blur} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %c1 = hev.mod_switch %c : !hev.ct<16> -> !hev.ct<16, level = 1>
  %r0 = hev.rotate %c1 by 12 : !hev.ct<16, level = 1>
  %s0 = hev.add %c1, %r0 : !hev.ct<16, level = 1>
  %out = hev.decrypt %s0 : !hev.ct<16, level = 1> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}

func.func @cube(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.spec} {
  %s = hev.spec.mul %x, %x : !hev.vec<16>
  %c = hev.spec.mul %s, %x : !hev.vec<16>
  func.return %c : !hev.vec<16>
}

func.func @cube_prog(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.implements = @cube} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %s3 = hev.multiply %c, %c : !hev.ct<16> -> !hev.ct<16, size = 3>
  %s = hev.relinearize %s3 : !hev.ct<16, size = 3> -> !hev.ct<16>
  %k3 = hev.multiply %s, %c : !hev.ct<16> -> !hev.ct<16, size = 3>
  %k = hev.relinearize %k3 : !hev.ct<16, size = 3> -> !hev.ct<16>
  %out = hev.decrypt %k : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}
