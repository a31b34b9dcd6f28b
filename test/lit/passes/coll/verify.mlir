// RUN: %tessel-opt %s -p coll-verify | filecheck %s

// coll-verify proves an algorithm implements its collective (symbolic chunk propagation and a
// race check) and leaves the module as it was. Here: an ALLGATHER on two GPUs, each sending its
// chunk to the other and copying its own into place.

// CHECK:      coll.algorithm @ag allgather ranks 2 chunkup 1 on @pair proto Simple {
// CHECK-NEXT:   coll.gpu 0 in 1 out 2 scratch 0 {
// CHECK-NEXT:     coll.threadblock send 1 recv -1 channel 0 {
// CHECK-NEXT:       coll.send i[0] x 1
// CHECK-NEXT:     }
// CHECK-NEXT:     coll.threadblock send -1 recv 1 channel 0 {
// CHECK-NEXT:       coll.recv o[1] x 1
// CHECK-NEXT:     }
// CHECK-NEXT:     coll.threadblock send -1 recv -1 channel 0 {
// CHECK-NEXT:       coll.copy i[0] -> o[0] x 1
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   coll.gpu 1 in 1 out 2 scratch 0 {
// CHECK:          coll.recv o[0] x 1
// CHECK:          coll.copy i[0] -> o[1] x 1
coll.algorithm @ag allgather ranks 2 chunkup 1 on @pair proto Simple {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send 1 recv -1 channel 0 {
      coll.send i[0] x 1
    }
    coll.threadblock send -1 recv 1 channel 0 {
      coll.recv o[1] x 1
    }
    coll.threadblock send -1 recv -1 channel 0 {
      coll.copy i[0] -> o[0] x 1
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
    coll.threadblock send 0 recv -1 channel 0 {
      coll.send i[0] x 1
    }
    coll.threadblock send -1 recv 0 channel 0 {
      coll.recv o[0] x 1
    }
    coll.threadblock send -1 recv -1 channel 0 {
      coll.copy i[0] -> o[1] x 1
    }
  }
}
