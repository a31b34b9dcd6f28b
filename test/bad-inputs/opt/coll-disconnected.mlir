// CMD: tessel-opt %s -o %o -p 'coll-synthesize{time-limit=5}'
// ERROR: infeasible: no sketch gives a allgather on split: sketch auto-c1: error: infeasible: rank
coll.topology @split gpus 4 per_node 4 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0
  coll.link 1 -> 0 nvlink alpha 0.3 beta 23.0
  coll.link 2 -> 3 nvlink alpha 0.3 beta 23.0
  coll.link 3 -> 2 nvlink alpha 0.3 beta 23.0
}
coll.collective @ag allgather ranks 4 chunkup 1 size 4096 on @split
