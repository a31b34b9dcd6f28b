// RUN: %tessel-opt %s -p tg-fuse,tg-plan-memory --split-input-file | filecheck %s
// RUN: %tessel-opt %s -p tg-fuse,tg-plan-memory,tg-to-kernel --split-input-file | filecheck %s --check-prefix=KERNEL

// tg-plan-memory builds a concat of contiguous slabs (a group tg-to-kernel copies into
// place) in place: a piece that a kernel produces is placed inside the concat's buffer at
// its slab, the buffer living from the first piece's producer to the concat's last use,
// so that the piece's kernel writes its slab and tg-to-kernel copies nothing for it.
// Softmaxes make the pieces: tg-fuse keeps them out of the concat's group.

// Both pieces in place: %a at the concat's offset, %b 64 * 4 = 256 bytes after it. The
// arena holds the concat alone; unplanned counts all three buffers.
// CHECK-LABEL: func.func @both
// CHECK-SAME:    tg.memory = {arena = 512 : i64, unplanned = 1024 : i64}
// CHECK:         %a = tg.fused "softmax"(%x) {tg.offset = 0 : i64}
// CHECK:         %b = tg.fused "softmax"(%x) {tg.offset = 256 : i64}
// CHECK:         %c = tg.fused "concat"(%a, %b) {tg.offset = 0 : i64}
// KERNEL-LABEL: func.func @both
// KERNEL-NOT:     memref.copy
// KERNEL:         func.return

func.func @both(%x: tensor<1x64xf32>) -> tensor<1x128xf32> {
  %a = tg.softmax %x {axis = 1 : i64} : tensor<1x64xf32>
  %b = tg.softmax %x {axis = 0 : i64} : tensor<1x64xf32>
  %c = tg.concat %a, %b {axis = 1 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32>
  %y = tg.softmax %c {axis = 1 : i64} : tensor<1x128xf32>
  func.return %y : tensor<1x128xf32>
}

// -----

// A slab that does not start on the 64-byte boundary every buffer has (%b's, 8 * 4 = 32
// bytes in) is not built in place: %b gets its own buffer and is copied.
// CHECK-LABEL: func.func @unaligned
// CHECK:         %a = tg.fused "softmax"(%x) {tg.offset = 0 : i64}
// CHECK:         %b = tg.fused "softmax"(%z) {tg.offset = 320 : i64}
// CHECK:         %c = tg.fused "concat"(%a, %b) {tg.offset = 0 : i64}
// KERNEL-LABEL: func.func @unaligned
// KERNEL-COUNT-1: "memref.copy"(%b,
// KERNEL-NOT:     memref.copy
// KERNEL:         func.return

func.func @unaligned(%x: tensor<1x8xf32>, %z: tensor<1x64xf32>) -> tensor<1x72xf32> {
  %a = tg.softmax %x {axis = 1 : i64} : tensor<1x8xf32>
  %b = tg.softmax %z {axis = 1 : i64} : tensor<1x64xf32>
  %c = tg.concat %a, %b {axis = 1 : i64} : (tensor<1x8xf32>, tensor<1x64xf32>) -> tensor<1x72xf32>
  %y = tg.softmax %c {axis = 1 : i64} : tensor<1x72xf32>
  func.return %y : tensor<1x72xf32>
}

// -----

// %c's pieces are the front of %d's (DenseNet's concats, each the one before and one
// more feature): %c is a view of %d's front, %a and %b are built there, and only %d's
// second %a is copied.
// CHECK-LABEL: func.func @twice
// CHECK-SAME:    tg.memory = {arena = 768 : i64, unplanned = 1792 : i64}
// CHECK:         %a = tg.fused "softmax"(%x) {tg.offset = 0 : i64}
// CHECK:         %b = tg.fused "softmax"(%x) {tg.offset = 256 : i64}
// CHECK:         %c = tg.fused "concat"(%a, %b) {tg.offset = 0 : i64}
// CHECK:         %d = tg.fused "concat"(%a, %b) {tg.offset = 0 : i64}
// KERNEL-LABEL: func.func @twice
// KERNEL:         %[[AT:.+]] = arith.constant 512 : index
// KERNEL-NEXT:    %[[SLAB:.+]] = memref.view %arena[%[[AT]]][] : memref<768xi8> to memref<1x64xf32>
// KERNEL-NEXT:    "memref.copy"(%a, %[[SLAB]])
// KERNEL-NOT:     memref.copy
// KERNEL:         func.return

func.func @twice(%x: tensor<1x64xf32>) -> (tensor<1x128xf32>, tensor<1x192xf32>) {
  %a = tg.softmax %x {axis = 1 : i64} : tensor<1x64xf32>
  %b = tg.softmax %x {axis = 0 : i64} : tensor<1x64xf32>
  %c = tg.concat %a, %b {axis = 1 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32>
  %y = tg.softmax %c {axis = 1 : i64} : tensor<1x128xf32>
  %d = tg.concat %a, %b, %a {axis = 1 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x192xf32>
  %w = tg.softmax %d {axis = 1 : i64} : tensor<1x192xf32>
  func.return %y, %w : tensor<1x128xf32>, tensor<1x192xf32>
}

// -----

// A piece whose buffer a reshape shares (%r is %a's bytes) keeps its own buffer.
// CHECK-LABEL: func.func @reshaped
// CHECK:         %a = tg.fused "softmax"(%x) {tg.offset = 512 : i64}
// CHECK:         %b = tg.fused "softmax"(%x) {tg.offset = 256 : i64}
// CHECK:         %c = tg.fused "concat"(%a, %b) {tg.offset = 0 : i64}

func.func @reshaped(%x: tensor<1x64xf32>) -> (tensor<1x128xf32>, tensor<8x8xf32>) {
  %a = tg.softmax %x {axis = 1 : i64} : tensor<1x64xf32>
  %r = tg.reshape %a : tensor<1x64xf32> -> tensor<8x8xf32>
  %s = tg.softmax %r {axis = 1 : i64} : tensor<8x8xf32>
  %b = tg.softmax %x {axis = 0 : i64} : tensor<1x64xf32>
  %c = tg.concat %a, %b {axis = 1 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32>
  %y = tg.softmax %c {axis = 1 : i64} : tensor<1x128xf32>
  func.return %y, %s : tensor<1x128xf32>, tensor<8x8xf32>
}

// -----

// A concat the function returns is the caller's buffer, not placed: its pieces keep
// buffers of their own.
// CHECK-LABEL: func.func @returned
// CHECK:         %a = tg.fused "softmax"(%x) {tg.offset = 0 : i64}
// CHECK:         %b = tg.fused "softmax"(%x) {tg.offset = 256 : i64}
// CHECK:         %c = tg.fused "concat"(%a, %b) :

func.func @returned(%x: tensor<1x64xf32>) -> tensor<1x128xf32> {
  %a = tg.softmax %x {axis = 1 : i64} : tensor<1x64xf32>
  %b = tg.softmax %x {axis = 0 : i64} : tensor<1x64xf32>
  %c = tg.concat %a, %b {axis = 1 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32>
  func.return %c : tensor<1x128xf32>
}

// -----

// Two concats of the same pieces in other orders: the last one (%d) builds them, the
// first copies both.
// CHECK-LABEL: func.func @shared
// CHECK:         %a = tg.fused "softmax"(%x) {tg.offset = 256 : i64}
// CHECK:         %b = tg.fused "softmax"(%x) {tg.offset = 0 : i64}
// CHECK:         %c = tg.fused "concat"(%a, %b) {tg.offset = 512 : i64}
// CHECK:         %d = tg.fused "concat"(%b, %a) {tg.offset = 0 : i64}
// KERNEL-LABEL: func.func @shared
// KERNEL-COUNT-2: "memref.copy"
// KERNEL-NOT:     memref.copy
// KERNEL:         func.return

func.func @shared(%x: tensor<1x64xf32>) -> (tensor<1x128xf32>, tensor<1x128xf32>) {
  %a = tg.softmax %x {axis = 1 : i64} : tensor<1x64xf32>
  %b = tg.softmax %x {axis = 0 : i64} : tensor<1x64xf32>
  %c = tg.concat %a, %b {axis = 1 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32>
  %y = tg.softmax %c {axis = 1 : i64} : tensor<1x128xf32>
  %d = tg.concat %b, %a {axis = 1 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32>
  %w = tg.softmax %d {axis = 1 : i64} : tensor<1x128xf32>
  func.return %y, %w : tensor<1x128xf32>, tensor<1x128xf32>
}
