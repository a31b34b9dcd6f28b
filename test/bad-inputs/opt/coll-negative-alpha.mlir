// CMD: tessel-opt %s -o %o
// ERROR: 'coll.link' op alpha must be >= 0, got -1.0
coll.topology @t gpus 2 per_node 2 {
  coll.link 0 -> 1 nvlink alpha -1.0 beta 1.0
}
