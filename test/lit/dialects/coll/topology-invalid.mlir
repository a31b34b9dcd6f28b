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

// -----

coll.topology @t gpus 2 per_node 2 {
  // CHECK: topology-invalid.mlir:[[# @LINE + 1]]:3: error: 'coll.link' op alpha must be >= 0, got -1.0
  coll.link 0 -> 1 nvlink alpha -1.0 beta 1.0
}

// -----

coll.topology @t gpus 2 per_node 2 {
  // CHECK: topology-invalid.mlir:[[# @LINE + 1]]:3: error: 'coll.link' op lanes must be >= 1, got 0
  coll.link 0 -> 1 nvlink alpha 0.3 beta 1.0 {lanes = 0 : i64}
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.nic' op 'coll.nic' expects parent op 'coll.topology'
coll.nic @n gpus [0, 1]

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op switch s: no GPUs
coll.topology @t gpus 2 per_node 2 {
  coll.switch @s gpus []
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op nic n: lists a GPU twice: [1, 1]
coll.topology @t gpus 2 per_node 2 {
  coll.nic @n gpus [1, 1]
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op may hold only coll.link, coll.nic and coll.switch, found coll.sketch
coll.topology @t gpus 2 per_node 2 {
  coll.sketch @s conn direct_map
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op gpus must be positive, got 0
coll.topology @t gpus 0 per_node 1 {
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op gpus 2048 is more than the limit of 1024 that synthesis and simulation handle
coll.topology @t gpus 2048 per_node 2048 {
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op link 0 -> 1: alpha must be finite and >= 0, got inf
coll.topology @t gpus 2 per_node 2 {
  coll.link 0 -> 1 nvlink alpha 1.0e999 beta 1.0
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op link 0 -> 1: beta must be finite and > 0, got inf
coll.topology @t gpus 2 per_node 2 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 1.0e999
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op link 0 -> 1: an ib link must join two nodes (both GPUs are on node 0)
coll.topology @t gpus 2 per_node 2 {
  coll.link 0 -> 1 ib alpha 2.6 beta 105.0
  coll.nic @n gpus [0, 1]
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op link 0 -> 1: no switch holds both GPUs
coll.topology @t gpus 2 per_node 2 {
  coll.link 0 -> 1 switch alpha 0.3 beta 8.0
  coll.switch @s gpus [0]
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op switch s: GPU 3 out of range 0..1
coll.topology @t gpus 2 per_node 2 {
  coll.switch @s gpus [0, 3]
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op nic b: GPU 1 is already attached to nic a
coll.topology @t gpus 2 per_node 2 {
  coll.nic @a gpus [0, 1]
  coll.nic @b gpus [1]
}

// -----

// CHECK: topology-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.topology' op name 'x' is used by two NICs/switches
coll.topology @t gpus 2 per_node 2 {
  coll.nic @x gpus [0, 1]
  coll.switch @x gpus [0, 1]
}
