// RUN: %tessel-opt %s -p coll-verify --split-input-file --verify-diagnostics | filecheck %s

// GPU 1 never gets GPU 0's chunk into o[0].
// CHECK: verify-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.algorithm' op @ag does not implement its allgather: GPU 1 ends with o[0] = nothing, allgather needs {r0:0}
coll.algorithm @ag allgather ranks 2 chunkup 1 on @pair {
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
      coll.recv o[1] x 1
    }
  }
}

// -----

// GPU 1 copies its own chunk over o[0] while the receive of GPU 0's chunk also writes it.
// CHECK: verify-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.algorithm' op @ag does not implement its allgather: race on GPU 1 o[0]: {{.*}} writes it while {{.*}} writes it, and neither waits for the other
coll.algorithm @ag allgather ranks 2 chunkup 1 on @pair {
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
      coll.copy i[0] -> o[0] x 1
    }
  }
}
