// RUN: %tessel-opt %s -p tg-fuse,tg-plan-memory,tg-to-kernel --split-input-file | filecheck %s
// RUN: %tessel-opt %s -p tg-fuse,tg-to-kernel --split-input-file | filecheck %s --check-prefix=UNPLANNED

// A group that is only a concat whose pieces are contiguous byte ranges of the result
// (every dim before the axis is 1) is no kernel: tg-to-kernel copies each piece into its
// range, a view of the concat's buffer at the piece's byte offset (here 0, 2*4*4 = 32 and
// 32 + 3*4*4 = 80 bytes into the concat planned at offset 0 of the arena). A piece may be
// a function argument, and the same value may be two pieces. tg-plan-memory built %a in
// place (its first slab, at offset 0 of %c): its kernel writes it there and only %z and
// the second %a are copied.

// CHECK-LABEL: func.func @slabs
// CHECK-SAME:    tg.memory = {arena = 112 : i64, unplanned = 192 : i64}
// CHECK-NOT:     concat
// CHECK:         %[[A0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.view %arena[%[[A0]]][] : memref<112xi8> to memref<1x2x4xf32>
// CHECK-NEXT:    func.call @k0_softmax(%x, %a)
// CHECK-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %c = memref.view %arena[%[[C0]]][] : memref<112xi8> to memref<1x7x4xf32>
// CHECK-NEXT:    %[[O1:.+]] = arith.constant 32 : index
// CHECK-NEXT:    %[[P1:.+]] = memref.view %arena[%[[O1]]][] : memref<112xi8> to memref<1x3x4xf32>
// CHECK-NEXT:    "memref.copy"(%z, %[[P1]])
// CHECK-NEXT:    %[[O2:.+]] = arith.constant 80 : index
// CHECK-NEXT:    %[[P2:.+]] = memref.view %arena[%[[O2]]][] : memref<112xi8> to memref<1x2x4xf32>
// CHECK-NEXT:    "memref.copy"(%a, %[[P2]])
// CHECK-NEXT:    func.call @k1_softmax(%c, %0)
// CHECK-NEXT:    func.call @k2_softmax(%c, %1)
// Without a memory plan the concat's buffer is an i8 allocation of its own, viewed likewise.
// UNPLANNED-LABEL: func.func @slabs
// UNPLANNED:         %[[RAW:.+]] = memref.alloc() {alignment = 64 : i64} : memref<112xi8>
// UNPLANNED:         %c = memref.view %[[RAW]]
// UNPLANNED-COUNT-3: "memref.copy"
func.func @slabs(%x: tensor<1x2x4xf32>, %z: tensor<1x3x4xf32>) -> (tensor<1x7x4xf32>, tensor<1x7x4xf32>) {
  %a = tg.softmax %x {axis = 2 : i64} : tensor<1x2x4xf32>
  %c = tg.concat %a, %z, %a {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x2x4xf32>) -> tensor<1x7x4xf32>
  %y = tg.softmax %c {axis = 2 : i64} : tensor<1x7x4xf32>
  %w = tg.softmax %c {axis = 1 : i64} : tensor<1x7x4xf32>
  func.return %y, %w : tensor<1x7x4xf32>, tensor<1x7x4xf32>
}

// -----

// Not slabs: at batch 2 the pieces interleave (each is two ranges of the result), so the
// concat is a kernel that selects among them.
// CHECK-LABEL: func.func @k1_concat
// CHECK:         kernel.compute "concat"
// CHECK-LABEL: func.func @interleaved
// CHECK-NOT:     memref.copy
// CHECK:         func.call @k1_concat
func.func @interleaved(%x: tensor<2x2x4xf32>, %z: tensor<2x3x4xf32>) -> (tensor<2x5x4xf32>, tensor<2x5x4xf32>) {
  %a = tg.softmax %x {axis = 2 : i64} : tensor<2x2x4xf32>
  %c = tg.concat %a, %z {axis = 1 : i64} : (tensor<2x2x4xf32>, tensor<2x3x4xf32>) -> tensor<2x5x4xf32>
  %y = tg.softmax %c {axis = 2 : i64} : tensor<2x5x4xf32>
  %w = tg.softmax %c {axis = 1 : i64} : tensor<2x5x4xf32>
  func.return %y, %w : tensor<2x5x4xf32>, tensor<2x5x4xf32>
}

// -----

// A concat the function returns is written into the caller's buffer, which is not a view
// of the arena: a kernel.
// CHECK-LABEL: func.func @k0_concat
// CHECK:         kernel.compute "concat"
// CHECK-LABEL: func.func @returned
// CHECK-NOT:     memref.copy
// CHECK:         func.call @k0_concat(%x, %z, %0)
func.func @returned(%x: tensor<1x2x4xf32>, %z: tensor<1x3x4xf32>) -> tensor<1x5x4xf32> {
  %c = tg.concat %x, %z {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
  func.return %c : tensor<1x5x4xf32>
}
