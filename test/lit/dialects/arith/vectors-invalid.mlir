// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @select_shapes(%m: vector<8xi1>, %x: vector<16xf32>) {
  // CHECK: vectors-invalid.mlir:[[# @LINE + 1]]:3: error: 'arith.select' op arith.select: condition vector<8xi1> and result vector<16xf32> differ in shape
  %0 = arith.select %m, %x, %x : vector<8xi1>, vector<16xf32>
  func.return
}

// -----

func.func @select_vector_of_scalars(%m: vector<16xi1>, %a: f32) {
  // CHECK: vectors-invalid.mlir:[[# @LINE + 1]]:3: error: 'arith.select' op arith.select: condition vector<16xi1> and result f32 differ in shape
  %0 = arith.select %m, %a, %a : vector<16xi1>, f32
  func.return
}

// -----

func.func @compare_result(%i: vector<16xindex>) {
  // CHECK: vectors-invalid.mlir:[[# @LINE + 1]]:3: error: 'arith.cmpi' op arith.cmpi: the result must be i1 of the operands' shape, got vector<8xi1>
  %0 = "arith.cmpi"(%i, %i) <{predicate = 2 : i64}> : (vector<16xindex>, vector<16xindex>) -> vector<8xi1>
  func.return
}
