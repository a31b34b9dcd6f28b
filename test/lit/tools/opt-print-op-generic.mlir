// --print-op-generic prints every op in the generic form, which parses back to the same IR.

// RUN: %tessel-opt %s --print-op-generic | filecheck %s
// RUN: %tessel-opt %s --print-op-generic | %tessel-opt | filecheck %s --check-prefix=CUSTOM

// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "func.func"() <{sym_name = "f", function_type = (tensor<2x3xf32>) -> tensor<3x2xf32>}> ({
// CHECK-NEXT:   ^bb0(%x: tensor<2x3xf32>):
// CHECK-NEXT:     %y = "tg.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:     %t = "tg.transpose"(%y) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:     "func.return"(%t) : (tensor<3x2xf32>) -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()

// CUSTOM:      func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
// CUSTOM-NEXT:   %y = tg.relu %x : tensor<2x3xf32>
// CUSTOM-NEXT:   %t = tg.transpose %y {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
// CUSTOM-NEXT:   func.return %t : tensor<3x2xf32>

func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %y = tg.relu %x : tensor<2x3xf32>
  %t = tg.transpose %y {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  func.return %t : tensor<3x2xf32>
}
