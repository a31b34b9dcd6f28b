// CMD: tessel-opt %s -o %o
// ERROR: 'coll.link' op GPU 1 cannot link to itself
coll.topology @t gpus 2 per_node 2 {
  coll.link 1 -> 1 nvlink alpha 0.3 beta 1.0
}
