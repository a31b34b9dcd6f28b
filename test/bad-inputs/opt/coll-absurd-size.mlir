// CMD: tessel-opt %s -o %o -p 'coll-synthesize{time-limit=5}'
// ERROR: Integer value 99999999999999999999999 is out of range for type i64 which supports values i
coll.topology @ring4 gpus 4 per_node 4 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0
  coll.link 1 -> 2 nvlink alpha 0.3 beta 23.0
  coll.link 2 -> 3 nvlink alpha 0.3 beta 23.0
  coll.link 3 -> 0 nvlink alpha 0.3 beta 23.0
}
coll.collective @ag allgather ranks 4 chunkup 1 size 99999999999999999999999 on @ring4
