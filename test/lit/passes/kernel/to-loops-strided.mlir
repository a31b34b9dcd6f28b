// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=512}' --split-input-file | filecheck %s

// A load whose last index steps by 2 per lane (a stride-2 convolution or pool read along
// its rows in NCHW) is one load of 32 contiguous elements and a shuffle of every second,
// not 16 scalar loads and inserts. The rows hold 34 elements: the wide loads' last
// element (index 32 for the odd one) is inside them, so the loads are plain.
// CHECK-LABEL: func.func @pairs__s0(
// CHECK-SAME:    kernel.schedule = "o0/1x2 o1/16x1 o1/1x16:vector"
// CHECK:         %[[E:.+]] = vector.load %x[%o0, %{{.+}}] : memref<2x34xf32>, vector<32xf32>
// CHECK-NEXT:    vector.shuffle %[[E]], %[[E]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK:         %[[O:.+]] = vector.load %x[%o0, %{{.+}}] : memref<2x34xf32>, vector<32xf32>
// CHECK-NEXT:    vector.shuffle %[[O]], %[[O]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK-NOT:     vector.insert
func.func @pairs(%x: memref<2x34xf32>, %y: memref<2x16xf32>) attributes {kernel.kernel} {
  kernel.compute "pairs" %y(o0 = 2, o1 = 16) : memref<2x16xf32> {
  ^bb0(%o0: index, %o1: index):
    %a = affine.load %x[%o0, 2 * %o1] : memref<2x34xf32>
    %b = affine.load %x[%o0, 2 * %o1 + 1] : memref<2x34xf32>
    %s = arith.addf %a, %b : f32
    kernel.yield %s : f32
  }
  func.return
}

// -----

// Rows of exactly 32: the odd elements' wide load would reach index 32, past the row (and,
// on the last row, past the buffer), so its last lane is masked off; the even one stays
// plain.
// CHECK-LABEL: func.func @pairs__s0(
// CHECK:         vector.load %x[%o0, %{{.+}}] : memref<2x32xf32>, vector<32xf32>
// CHECK:         %[[N:.+]] = arith.constant 31 : index
// CHECK-NEXT:    %[[M:.+]] = vector.create_mask %[[N]] : vector<32xi1>
// CHECK:         %[[O:.+]] = vector.maskedload %x[%o0, %{{.+}}], %[[M]], %{{.+}} : memref<2x32xf32>, vector<32xi1>, vector<32xf32> into vector<32xf32>
// CHECK-NEXT:    vector.shuffle %[[O]], %[[O]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
func.func @pairs(%x: memref<2x32xf32>, %y: memref<2x16xf32>) attributes {kernel.kernel} {
  kernel.compute "pairs" %y(o0 = 2, o1 = 16) : memref<2x16xf32> {
  ^bb0(%o0: index, %o1: index):
    %a = affine.load %x[%o0, 2 * %o1] : memref<2x32xf32>
    %b = affine.load %x[%o0, 2 * %o1 + 1] : memref<2x32xf32>
    %s = arith.addf %a, %b : f32
    kernel.yield %s : f32
  }
  func.return
}

// -----

// A stride of 5 would load 5 vectors for one: it stays lane by lane.
// CHECK-LABEL: func.func @fifths__s0(
// CHECK-NOT:     vector.shuffle
// CHECK:         vector.insert
func.func @fifths(%x: memref<80xf32>, %y: memref<16xf32>) attributes {kernel.kernel} {
  kernel.compute "fifths" %y(o0 = 16) : memref<16xf32> {
  ^bb0(%o0: index):
    %a = affine.load %x[5 * %o0] : memref<80xf32>
    kernel.yield %a : f32
  }
  func.return
}
