// CMD: tessel-opt %s -o %o -p coll-verify
// ERROR: 'coll.algorithm' op @ag_alg does not implement its allgather: GPU 0 ends with o[0] = nothi
coll.topology @ring4 gpus 4 per_node 4 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0
  coll.link 1 -> 2 nvlink alpha 0.3 beta 23.0
  coll.link 2 -> 3 nvlink alpha 0.3 beta 23.0
  coll.link 3 -> 0 nvlink alpha 0.3 beta 23.0
}

coll.collective @ag allgather ranks 4 chunkup 1 size 4096 on @ring4
coll.algorithm @ag_alg allgather ranks 4 chunkup 1 on @ring4 {
  coll.gpu 0 in 1 out 4 scratch 0 {
  }
  coll.gpu 1 in 1 out 4 scratch 0 {
  }
  coll.gpu 2 in 1 out 4 scratch 0 {
  }
  coll.gpu 3 in 1 out 4 scratch 0 {
  }
}
