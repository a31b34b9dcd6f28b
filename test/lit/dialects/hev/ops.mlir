// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// Types: the size and level of a ciphertext print only when they differ from 2 and 0.
// CHECK-LABEL: func.func @types
// CHECK-SAME: (%v: !hev.vec<8>, %p: !hev.pt<8>, %c: !hev.ct<8>, %c3: !hev.ct<8, size = 3>, %l: !hev.ct<8, level = 1>, %c3l: !hev.ct<8, size = 3, level = 2>)
func.func @types(%v: !hev.vec<8>, %p: !hev.pt<8>, %c: !hev.ct<8>, %c3: !hev.ct<8, size = 3>, %l: !hev.ct<8, level = 1>, %c3l: !hev.ct<8, size = 3, level = 2>) {
  func.return
}

// -----

// CHECK-LABEL: func.func @boundaries
// CHECK: %c = hev.encrypt %x : !hev.vec<8> -> !hev.ct<8>
// CHECK: %p = hev.encode %y : !hev.vec<8> -> !hev.pt<8>
// CHECK: %k = hev.constant -3 : !hev.pt<8>
// CHECK: %o = hev.decrypt %c : !hev.ct<8> -> !hev.vec<8>
func.func @boundaries(%x: !hev.vec<8>, %y: !hev.vec<8>) -> !hev.vec<8> {
  %c = hev.encrypt %x : !hev.vec<8> -> !hev.ct<8>
  %p = hev.encode %y : !hev.vec<8> -> !hev.pt<8>
  %k = hev.constant -3 : !hev.pt<8>
  %o = hev.decrypt %c : !hev.ct<8> -> !hev.vec<8>
  func.return %o : !hev.vec<8>
}

// -----

// Binary ciphertext ops print one type when all agree, `T -> R` when the operands agree.
// CHECK-LABEL: func.func @arithmetic
// CHECK: %s = hev.add %a, %b : !hev.ct<4>
// CHECK: %d = hev.sub %a, %b : !hev.ct<4>
// CHECK: %m = hev.multiply %a, %b : !hev.ct<4> -> !hev.ct<4, size = 3>
// CHECK: %ms = hev.add %m, %a : !hev.ct<4, size = 3>, !hev.ct<4> -> !hev.ct<4, size = 3>
// CHECK: %sm = hev.sub %a, %m : !hev.ct<4>, !hev.ct<4, size = 3> -> !hev.ct<4, size = 3>
// CHECK: %r = hev.relinearize %ms : !hev.ct<4, size = 3> -> !hev.ct<4>
// CHECK: %n = hev.negate %m : !hev.ct<4, size = 3>
// CHECK: %rot = hev.rotate %r by -3 : !hev.ct<4>
// CHECK: %sw = hev.mod_switch %rot : !hev.ct<4> -> !hev.ct<4, level = 1>
func.func @arithmetic(%a: !hev.ct<4>, %b: !hev.ct<4>) {
  %s = hev.add %a, %b : !hev.ct<4>
  %d = hev.sub %a, %b : !hev.ct<4>
  %m = hev.multiply %a, %b : !hev.ct<4> -> !hev.ct<4, size = 3>
  %ms = hev.add %m, %a : !hev.ct<4, size = 3>, !hev.ct<4> -> !hev.ct<4, size = 3>
  %sm = hev.sub %a, %m : !hev.ct<4>, !hev.ct<4, size = 3> -> !hev.ct<4, size = 3>
  %r = hev.relinearize %ms : !hev.ct<4, size = 3> -> !hev.ct<4>
  %n = hev.negate %m : !hev.ct<4, size = 3>
  %rot = hev.rotate %r by -3 : !hev.ct<4>
  %sw = hev.mod_switch %rot : !hev.ct<4> -> !hev.ct<4, level = 1>
  func.return
}

// -----

// CHECK-LABEL: func.func @plain
// CHECK: %a = hev.add_plain %c, %p : !hev.ct<16, level = 1>, !hev.pt<16>
// CHECK: %s = hev.sub_plain %c, %p : !hev.ct<16, level = 1>, !hev.pt<16>
// CHECK: %m = hev.multiply_plain %c, %p : !hev.ct<16, level = 1>, !hev.pt<16>
func.func @plain(%c: !hev.ct<16, level = 1>, %p: !hev.pt<16>) {
  %a = hev.add_plain %c, %p : !hev.ct<16, level = 1>, !hev.pt<16>
  %s = hev.sub_plain %c, %p : !hev.ct<16, level = 1>, !hev.pt<16>
  %m = hev.multiply_plain %c, %p : !hev.ct<16, level = 1>, !hev.pt<16>
  func.return
}

// -----

// CHECK-LABEL: func.func @spec
// CHECK-SAME: attributes {hev.spec, hev.plain_modulus = 786433 : i64}
// CHECK: %s = hev.spec.shift %x by -5 : !hev.vec<16>
// CHECK: %a = hev.spec.add %x, %s : !hev.vec<16>
// CHECK: %b = hev.spec.sub %a, %y : !hev.vec<16>
// CHECK: %two = hev.spec.const 2 : !hev.vec<16>
// CHECK: %c = hev.spec.mul %two, %b : !hev.vec<16>
// CHECK: %n = hev.spec.neg %c : !hev.vec<16>
// CHECK: %t = hev.spec.sum %n : !hev.vec<16>
func.func @spec(%x: !hev.vec<16> {hev.image = array<i64: 4, 4>}, %y: !hev.vec<16> {hev.public, hev.domain = #hev<domain bits>}) -> (!hev.vec<16> {hev.slots = array<i64: 0, 3>}) attributes {hev.spec, hev.plain_modulus = 786433 : i64} {
  %s = hev.spec.shift %x by -5 : !hev.vec<16>
  %a = hev.spec.add %x, %s : !hev.vec<16>
  %b = hev.spec.sub %a, %y : !hev.vec<16>
  %two = hev.spec.const 2 : !hev.vec<16>
  %c = hev.spec.mul %two, %b : !hev.vec<16>
  %n = hev.spec.neg %c : !hev.vec<16>
  %t = hev.spec.sum %n : !hev.vec<16>
  func.return %t : !hev.vec<16>
}
