// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @slots_not_power_of_two(%c: !hev.ct<6>) {
  // CHECK: ops-invalid.mlir:[[# @LINE - 1]]:{{[0-9]+}}: error: !hev.ct slot count must be a power of two between 1 and 16384, got 6
  func.return
}

// -----

func.func @too_many_slots(%v: !hev.vec<32768>) {
  // CHECK: error: !hev.vec slot count must be a power of two between 1 and 16384, got 32768
  func.return
}

// -----

func.func @bad_size(%c: !hev.ct<8, size = 4>) {
  // CHECK: error: !hev.ct size must be 2 or 3, got 4
  func.return
}

// -----

func.func @bad_key(%c: !hev.ct<8, depth = 1>) {
  // CHECK: error: !hev.ct takes 'size' and 'level', got 'depth'
  func.return
}

// -----

func.func @encrypt_slots(%v: !hev.vec<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.encrypt' op result type should be !hev.ct<8>, got !hev.ct<4>
  %c = hev.encrypt %v : !hev.vec<8> -> !hev.ct<4>
  func.return
}

// -----

func.func @add_slots(%a: !hev.ct<8>, %b: !hev.ct<4>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.add' op operands must have the same slot count, got !hev.ct<8> and !hev.ct<4>
  %s = hev.add %a, %b : !hev.ct<8>, !hev.ct<4> -> !hev.ct<8>
  func.return
}

// -----

func.func @add_levels(%a: !hev.ct<8>, %b: !hev.ct<8, level = 1>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.sub' op operands must be at the same level (mod_switch the other one), got !hev.ct<8> and !hev.ct<8, level = 1>
  %s = hev.sub %a, %b : !hev.ct<8>, !hev.ct<8, level = 1> -> !hev.ct<8>
  func.return
}

// -----

func.func @add_size(%a: !hev.ct<8>, %b: !hev.ct<8, size = 3>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.add' op result type should be !hev.ct<8, size = 3>, got !hev.ct<8>
  %s = hev.add %a, %b : !hev.ct<8>, !hev.ct<8, size = 3> -> !hev.ct<8>
  func.return
}

// -----

func.func @multiply_result(%a: !hev.ct<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.multiply' op result type should be !hev.ct<8, size = 3>, got !hev.ct<8>
  %m = hev.multiply %a, %a : !hev.ct<8>
  func.return
}

// -----

func.func @multiply_unrelinearized(%a: !hev.ct<8, size = 3>, %b: !hev.ct<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.multiply' op operands must be relinearized (size 2), got !hev.ct<8, size = 3>
  %m = hev.multiply %a, %b : !hev.ct<8, size = 3>, !hev.ct<8> -> !hev.ct<8, size = 3>
  func.return
}

// -----

func.func @rotate_unrelinearized(%a: !hev.ct<8, size = 3>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.rotate' op operand must be relinearized (size 2) before a rotation, got !hev.ct<8, size = 3>
  %r = hev.rotate %a by 1 : !hev.ct<8, size = 3>
  func.return
}

// -----

func.func @rotate_range(%a: !hev.ct<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.rotate' op rotation offset must be non-zero and within (-8, 8) for !hev.ct<8>, got -8
  %r = hev.rotate %a by -8 : !hev.ct<8>
  func.return
}

// -----

func.func @rotate_zero(%a: !hev.ct<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.rotate' op rotation offset must be non-zero and within (-8, 8) for !hev.ct<8>, got 0
  %r = hev.rotate %a by 0 : !hev.ct<8>
  func.return
}

// -----

func.func @relinearize_size2(%a: !hev.ct<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.relinearize' op operand must have size 3 (a product), got !hev.ct<8>
  %r = hev.relinearize %a : !hev.ct<8> -> !hev.ct<8>
  func.return
}

// -----

func.func @mod_switch_level(%a: !hev.ct<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.mod_switch' op result type should be !hev.ct<8, level = 1>, got !hev.ct<8, level = 2>
  %r = hev.mod_switch %a : !hev.ct<8> -> !hev.ct<8, level = 2>
  func.return
}

// -----

func.func @plain_slots(%a: !hev.ct<8>, %p: !hev.pt<4>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.multiply_plain' op operands must have the same slot count, got !hev.ct<8> and !hev.pt<4>
  %m = hev.multiply_plain %a, %p : !hev.ct<8>, !hev.pt<4>
  func.return
}

// -----

func.func @decrypt_slots(%a: !hev.ct<8, size = 3>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.decrypt' op result type should be !hev.vec<8>, got !hev.vec<16>
  %v = hev.decrypt %a : !hev.ct<8, size = 3> -> !hev.vec<16>
  func.return
}

// -----

func.func @binary_missing_result(%a: !hev.ct<8>, %b: !hev.ct<8, size = 3>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: expected '->' and the result type after the operand types of hev.add
  %s = hev.add %a, %b : !hev.ct<8>, !hev.ct<8, size = 3>
  func.return
}

// -----

func.func @shift_range(%x: !hev.vec<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.spec.shift' op shift offset must be non-zero and within (-8, 8) for !hev.vec<8>, got 9
  %s = hev.spec.shift %x by 9 : !hev.vec<8>
  func.return
}

// -----

func.func @spec_types(%x: !hev.vec<8>, %y: !hev.vec<4>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}!hev.vec<4>{{.*}}
  %s = hev.spec.add %x, %y : !hev.vec<8>
  func.return
}

// -----

func.func @plain_slots_type(%p: !hev.pt<3>) {
  // CHECK: error: !hev.pt slot count must be a power of two between 1 and 16384, got 3
  func.return
}

// -----

func.func @negative_level(%c: !hev.ct<8, level = -1>) {
  // CHECK: error: !hev.ct level must be non-negative, got -1
  func.return
}

// -----

func.func @encode_result(%v: !hev.vec<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'hev.encode' op result type should be !hev.pt<8>, got !hev.pt<16>
  %p = hev.encode %v : !hev.vec<8> -> !hev.pt<16>
  func.return
}

// -----

// Operand type constraints: a cleartext vector is not a ciphertext.
func.func @add_cleartext(%v: !hev.vec<8>, %c: !hev.ct<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}!hev.vec<8>{{.*}}
  %s = hev.add %v, %c : !hev.vec<8>, !hev.ct<8> -> !hev.ct<8>
  func.return
}

// -----

// A plaintext operand must be a plaintext, and the result has the ciphertext's type.
func.func @multiply_plain_result(%c: !hev.ct<8>, %p: !hev.pt<8>) {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}hev.multiply_plain{{.*}}
  %m = "hev.multiply_plain"(%c, %p) : (!hev.ct<8>, !hev.pt<8>) -> !hev.ct<8, level = 1>
  func.return
}

// -----

// hev.domain is an enum: any or bits.
// CHECK: ops-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}`any`{{.*}}`bits`{{.*}}
func.func @bad_domain(%v: !hev.vec<8> {hev.domain = #hev<domain bool>}) {
  func.return
}
