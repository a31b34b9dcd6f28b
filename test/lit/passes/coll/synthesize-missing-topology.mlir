// RUN: not %tessel-opt %s -p coll-synthesize 2>&1 | filecheck %s

// CHECK: synthesize-missing-topology.mlir:[[# @LINE + 1]]:1: error: 'coll.collective' op refers to @nowhere, which is not a coll.topology in the module
coll.collective @ag allgather ranks 4 chunkup 1 size 4096 on @nowhere
