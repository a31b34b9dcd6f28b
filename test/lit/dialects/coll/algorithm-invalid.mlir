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

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send -1 recv -1 channel 0 {
      // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:7: error: 'coll.copy' op count must be >= 1, got 0
      coll.copy i[0] -> o[0] x 0
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.send' op 'coll.send' expects parent op 'coll.threadblock'
coll.send i[0] x 1

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send 1 recv -1 channel 0 {
      // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:7: error: 'coll.recv' op receives in a threadblock with no recv peer (recv -1)
      coll.recv o[1] x 1
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send -1 recv -1 channel 0 {
      // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:7: error: 'coll.copy' op depends on threadblock 5, but GPU 0 has 1
      coll.copy i[0] -> o[0] x 1 deps [(5, 0)]
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send -1 recv -1 channel 0 {
      coll.copy i[0] -> o[0] x 1
      // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:7: error: 'coll.nop' op depends on step 0 of its own threadblock; program order already covers that
      coll.nop deps [(0, 0)]
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.threadblock' op 'coll.threadblock' expects parent op 'coll.gpu'
coll.threadblock send -1 recv -1 channel 0 {
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:5: error: 'coll.threadblock' op recv peer 7 is out of range (-1 or 0..1)
    coll.threadblock send -1 recv 7 channel 0 {
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:5: error: 'coll.threadblock' op channel must be >= 0, got -2
    coll.threadblock send -1 recv -1 channel -2 {
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:5: error: 'coll.threadblock' op may hold only step ops, found coll.nic
    coll.threadblock send -1 recv -1 channel 0 {
      coll.nic @n gpus [0]
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.gpu' op 'coll.gpu' expects parent op 'coll.algorithm'
coll.gpu 0 in 1 out 2 scratch 0 {
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:3: error: 'coll.gpu' op scratch must be >= 0 chunks, got -1
  coll.gpu 0 in 1 out 2 scratch -1 {
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  // CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:3: error: 'coll.gpu' op may hold only coll.threadblock, found coll.copy
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.copy i[0] -> o[0] x 1
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.algorithm' op only broadcast and reduce take a root, not allgather
coll.algorithm @a allgather ranks 2 chunkup 1 on @t attributes {root = 1 : i64} {
  coll.gpu 0 in 1 out 2 scratch 0 {
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
  }
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:59: error: expected a protocol: Simple, LL, LL128
coll.algorithm @a allgather ranks 2 chunkup 1 on @t proto LL256 {
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.algorithm' op may hold only coll.gpu, found coll.sketch
coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.sketch @s conn direct_map
}

// -----

// CHECK: algorithm-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.algorithm' op message 0 from GPU 0 to GPU 1 on channel 0 sends 1 chunks, the recv expects 2
coll.algorithm @a allgather ranks 2 chunkup 1 on @t {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send 1 recv -1 channel 0 {
      coll.send i[0] x 1
    }
  }
  coll.gpu 1 in 1 out 2 scratch 0 {
    coll.threadblock send -1 recv 0 channel 0 {
      coll.recv o[0] x 2
    }
  }
}
