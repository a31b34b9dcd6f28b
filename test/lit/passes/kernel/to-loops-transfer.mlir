// RUN: %tessel-opt %s -p 'kernel-to-loops{vector_bits=512}' --split-input-file | filecheck %s

// A stage vectorized along an outer axis (`lanes(o1)`, an int8 convolution's output
// channels in NCHW): its loads and its store along that axis are one
// vector.transfer_read / transfer_write each, the permutation map naming the dimension
// the lanes run along, not 4 scalar loads and inserts (extracts and stores) per vector.
// CHECK-LABEL: func.func @scale__s0(
// CHECK-SAME:    kernel.schedule = "o0/1x2 o2/1x3 o1/4x5 o1/1x4:vector"
// CHECK:         vector.transfer_read %x[%o0, %[[C:.+]], %o2], %{{.+}} {in_bounds = [true], permutation_map = affine_map<(d0, d1, d2) -> (d1)>} : memref<2x20x3xi8>, vector<4xi8>
// CHECK:         vector.transfer_read %r[%o0, %[[C]], %o2], %{{.+}} {in_bounds = [true], permutation_map = affine_map<(d0, d1, d2) -> (d1)>} : memref<2x20x3xf32>, vector<4xf32>
// CHECK:         vector.transfer_write %{{.+}}, %y[%o0, %[[C]], %o2] {in_bounds = [true], permutation_map = affine_map<(d0, d1, d2) -> (d1)>} : vector<4xf32>, memref<2x20x3xf32>
// CHECK-NOT:     vector.insert
// CHECK-NOT:     vector.extract
func.func @scale(%x: memref<2x20x3xi8>, %r: memref<2x20x3xf32>, %y: memref<2x20x3xf32>) attributes {kernel.kernel} {
  kernel.compute "scale" %y(o0 = 2, o1 = 20, o2 = 3) lanes(o1) : memref<2x20x3xf32> {
  ^bb0(%o0: index, %o1: index, %o2: index):
    %a = affine.load %x[%o0, %o1, %o2] : memref<2x20x3xi8>
    %b = affine.load %r[%o0, %o1, %o2] : memref<2x20x3xf32>
    %f = arith.sitofp %a : i8 to f32
    %s = arith.addf %f, %b : f32
    kernel.yield %s : f32
  }
  func.return
}

// -----

// With a tail (20 lanes in vectors of 16) the transfers take the tail's mask.
// CHECK-LABEL: func.func @scale__s0(
// CHECK-SAME:    kernel.schedule = "o0/1x2 o2/1x3 o1/16x2 o1/1x16:vector"
// CHECK:         %[[M:.+]] = vector.create_mask %{{.+}} : vector<16xi1>
// CHECK:         vector.transfer_read %x[%o0, %[[C:.+]], %o2], %{{.+}}, %[[M]] {permutation_map = affine_map<(d0, d1, d2) -> (d1)>} : memref<2x20x3xi8>, vector<16xi8>
// CHECK:         vector.transfer_write %{{.+}}, %y[%o0, %[[C]], %o2], %[[M]] {permutation_map = affine_map<(d0, d1, d2) -> (d1)>} : vector<16xf32>, memref<2x20x3xf32>
func.func @scale(%x: memref<2x20x3xi8>, %r: memref<2x20x3xf32>, %y: memref<2x20x3xf32>) attributes {kernel.kernel} {
  kernel.compute "scale" %y(o0 = 2, o1 = 20, o2 = 3) lanes(o1) : memref<2x20x3xf32> {
  ^bb0(%o0: index, %o1: index, %o2: index):
    %a = affine.load %x[%o0, %o1, %o2] : memref<2x20x3xi8>
    %b = affine.load %r[%o0, %o1, %o2] : memref<2x20x3xf32>
    %f = arith.sitofp %a : i8 to f32
    %s = arith.addf %f, %b : f32
    kernel.yield %s : f32
  }
  func.return
}
sched.stage "scale__s0" {
  %o0, %o1, %o2 = sched.axes ["o0", "o1", "o2"]
  %o1.o, %o1.i = sched.split %o1 by 16
  sched.reorder %o0, %o2, %o1.o, %o1.i
  sched.vectorize %o1.i
}

// -----

// Boolean lanes (vectorized by a schedule) stay lane by lane: bytes in memory, bits in a
// vector.
// CHECK-LABEL: func.func @flags__s0(
// CHECK-NOT:     vector.transfer_read
// CHECK:         vector.insert
// CHECK-NOT:     vector.transfer_write
func.func @flags(%x: memref<2x16x3xi1>, %y: memref<2x16x3xi1>) attributes {kernel.kernel} {
  kernel.compute "flags" %y(o0 = 2, o1 = 16, o2 = 3) lanes(o1) : memref<2x16x3xi1> {
  ^bb0(%o0: index, %o1: index, %o2: index):
    %a = affine.load %x[%o0, %o1, %o2] : memref<2x16x3xi1>
    %t = arith.constant true
    %n = arith.xori %a, %t : i1
    kernel.yield %n : i1
  }
  func.return
}
sched.stage "flags__s0" {
  %o0, %o1, %o2 = sched.axes ["o0", "o1", "o2"]
  sched.reorder %o0, %o2, %o1
  sched.vectorize %o1
}
