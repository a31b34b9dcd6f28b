// RUN: %tessel-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

coll.topology @t gpus 2 per_node 2 {
  // CHECK: topology-invalid.mlir:[[# @LINE + 1]]:3: error: 'coll.link' op beta must be > 0, got 0.0
  coll.link 0 -> 1 nvlink alpha 0.3 beta 0.0
}

// -----

coll.topology @t gpus 2 per_node 2 {
  // CHECK: topology-invalid.mlir:[[# @LINE + 1]]:20: error: expected a link kind: nvlink, pcie, ib, switch
  coll.link 0 -> 1 wifi alpha 0.3 beta 1.0
}

// -----

coll.topology @t gpus 2 per_node 2 {
  // CHECK: topology-invalid.mlir:[[# @LINE + 1]]:3: error: 'coll.link' op GPU 1 cannot link to itself
  coll.link 1 -> 1 nvlink alpha 0.3 beta 1.0
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op link 0 -> 5: endpoint out of range 0..3
coll.topology @t gpus 4 per_node 2 {
  coll.link 0 -> 5 nvlink alpha 0.3 beta 1.0
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op link 0 -> 2: a nvlink link cannot leave its node; use kind ib
coll.topology @t gpus 4 per_node 2 {
  coll.link 0 -> 2 nvlink alpha 0.3 beta 1.0
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op link 0 -> 2: GPU 0 has no NIC
coll.topology @t gpus 4 per_node 2 {
  coll.link 0 -> 2 ib alpha 2.6 beta 105.0
  coll.nic @n1 gpus [2, 3]
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op gpus_per_node (3) must be positive and divide gpus (4)
coll.topology @t gpus 4 per_node 3 {
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op nic n: GPUs [1, 2] span several nodes
coll.topology @t gpus 4 per_node 2 {
  coll.nic @n gpus [1, 2]
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op link 0 -> 1 is declared twice
coll.topology @t gpus 2 per_node 2 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 1.0
  coll.link 0 -> 1 nvlink alpha 0.3 beta 2.0
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.link' op 'coll.link' expects parent op 'coll.topology'
coll.link 0 -> 1 nvlink alpha 0.3 beta 1.0
