// RUN: %tessel-opt %s | %tessel-opt | filecheck %s

// arith's compares and select on vectors (dialects/arith_vectors.py), in MLIR's syntax:
// a scalar select keeps upstream's `: type`, a vector condition is written before the
// values' type; compares of vectors yield vectors of i1. Printed and parsed back.
// CHECK-LABEL: func.func @vectors(
// CHECK:         %0 = arith.cmpi slt, %i, %j : vector<16xindex>
// CHECK:         %1 = arith.cmpf olt, %x, %y : vector<16xf32>
// CHECK:         %2 = arith.andi %0, %1 : vector<16xi1>
// CHECK:         %3 = arith.select %2, %x, %y : vector<16xi1>, vector<16xf32>
// CHECK:         %4 = arith.select %c, %x, %y : vector<16xf32>
// CHECK:         %5 = arith.select %c, %a, %b : f32
// CHECK:         %6 = arith.cmpi sge, %k, %k : index
func.func @vectors(%c: i1, %a: f32, %b: f32, %x: vector<16xf32>, %y: vector<16xf32>, %i: vector<16xindex>, %j: vector<16xindex>, %k: index) {
  %0 = arith.cmpi slt, %i, %j : vector<16xindex>
  %1 = arith.cmpf olt, %x, %y : vector<16xf32>
  %2 = arith.andi %0, %1 : vector<16xi1>
  %3 = arith.select %2, %x, %y : vector<16xi1>, vector<16xf32>
  %4 = arith.select %c, %x, %y : vector<16xf32>
  %5 = arith.select %c, %a, %b : f32
  %6 = arith.cmpi sge, %k, %k : index
  func.return
}
