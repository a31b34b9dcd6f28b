// CMD: tessel-opt %s -o %o -p 'coll-synthesize{time-limit=5}'
// ERROR: 'coll.collective' op chunkup must be <= 64, got 100000000
coll.topology @ring4 gpus 4 per_node 4 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0
  coll.link 1 -> 2 nvlink alpha 0.3 beta 23.0
  coll.link 2 -> 3 nvlink alpha 0.3 beta 23.0
  coll.link 3 -> 0 nvlink alpha 0.3 beta 23.0
}
coll.collective @ag allgather ranks 4 chunkup 100000000 size 4096 on @ring4
