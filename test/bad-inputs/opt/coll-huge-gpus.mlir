// CMD: tessel-opt %s -o %o -p 'coll-synthesize{time-limit=5}'
// ERROR: 'coll.topology' op gpus 100000000 is more than the limit of 1024 that synthesis and simula
coll.topology @big gpus 100000000 per_node 8 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0
}
coll.collective @ag allgather ranks 100000000 chunkup 1 size 4096 on @big
