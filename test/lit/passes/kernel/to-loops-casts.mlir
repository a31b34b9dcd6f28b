// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=512}' | filecheck %s

// A cast of lanes loaded as one vector is one vector cast (arith's casts on vectors,
// dialects/arith_vectors.py: vpmovzxbd), also where the vector is a shuffle of a wide load
// (a stride-2 load, lane_body.py's _strided_load); a cast of lanes loaded one by one (a
// stride-5 load) stays per lane, applied to each extracted byte, which LLVM folds into the
// scalar load (movzbl): building a vector of bytes from scalars goes through the stack and
// made a stride-2 int8 convolution 5x slower.
// CHECK-LABEL: func.func @casts__s0(
// CHECK:         %[[V:.+]] = vector.load %x[%{{.+}}] : memref<80xi8>, vector<16xi8>
// CHECK-NEXT:    arith.extui %[[V]] : vector<16xi8> to vector<16xi32>
// CHECK-LABEL: func.func @casts__s1(
// CHECK:         %[[W:.+]] = vector.load %x[%{{.+}}] : memref<80xi8>, vector<32xi8>
// CHECK-NEXT:    %[[S:.+]] = vector.shuffle %[[W]], %[[W]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK-NEXT:    arith.extui %[[S]] : vector<16xi8> to vector<16xi32>
// CHECK-LABEL: func.func @casts__s2(
// CHECK-COUNT-16: memref.load %x[%{{.+}}] : memref<80xi8>
// CHECK:         %[[B:.+]] = vector.extract %{{.+}}[0] : i8 from vector<16xi8>
// CHECK-NEXT:    arith.extui %[[B]] : i8 to i32
// CHECK-NOT:     arith.extui %{{.+}} : vector<16xi8> to vector<16xi32>
func.func @casts(%x: memref<80xi8>, %y: memref<16xi32>, %z: memref<16xi32>, %v: memref<16xi32>) attributes {kernel.kernel} {
  kernel.compute "contiguous" %y(i = 16) : memref<16xi32> {
  ^bb0(%i: index):
    %a = affine.load %x[%i] : memref<80xi8>
    %w = arith.extui %a : i8 to i32
    kernel.yield %w : i32
  }
  kernel.compute "strided" %z(i = 16) : memref<16xi32> {
  ^bb0(%i: index):
    %a = affine.load %x[%i * 2] : memref<80xi8>
    %w = arith.extui %a : i8 to i32
    kernel.yield %w : i32
  }
  kernel.compute "fifths" %v(i = 16) : memref<16xi32> {
  ^bb0(%i: index):
    %a = affine.load %x[%i * 5] : memref<80xi8>
    %w = arith.extui %a : i8 to i32
    kernel.yield %w : i32
  }
  func.return
}
