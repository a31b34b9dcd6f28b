// RUN: %tessel-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send -1 recv 1 channel 0 {
      // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:7: error: 'coll.send' op sends from a threadblock with no send peer (send -1)
      coll.send i[0] x 1
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send 1 recv -1 channel 0 {
      // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:7: error: 'coll.send' op o[1] x 2 is outside the output buffer of GPU 0 (2 chunks)
      coll.send o[1] x 2
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:5: error: 'coll.threadblock' op send peer is the GPU itself (0)
    coll.threadblock send 0 recv -1 channel 0 {
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send -1 recv -1 channel 0 {
      // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:7: error: 'coll.copy' op depends on step 3 of threadblock 0, which has 1 steps
      coll.copy i[0] -> o[0] x 1 deps [(0, 3)]
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.algorithm' op GPU 0 sends 1 messages to GPU 1 on channel 0, which receives 0
coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send 1 recv -1 channel 0 {
      coll.send i[0] x 1
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.algorithm' op GPU 1 has in 2 out 2; a allgather with chunkup 1 on 2 ranks needs in 1 out 2
coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
  }
  coll.gpu 1 in 2 out 2 scratch 0 {
  }
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.algorithm' op needs one coll.gpu per rank 0..1, got ranks [0]
coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:3: error: 'coll.gpu' op threadblocks 0 and 1 both send to GPU 1 on channel 0; one connection per peer and channel
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send 1 recv -1 channel 0 {
    }
    coll.threadblock send 1 recv -1 channel 0 {
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send 1 recv -1 channel 0 {
      // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:17: error: expected a buffer slot: i[k] (input), o[k] (output) or s[k] (scratch)
      coll.send x[0] x 1
    }
  }
}
