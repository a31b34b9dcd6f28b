// CMD: tessel-opt %s -o %o -p 'coll-synthesize{time-limit=5}'
// ERROR: coll.sketch @s: field 'symmetry_offsets': group 32 does not divide 4 GPUs
coll.topology @ring4 gpus 4 per_node 4 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0
  coll.link 1 -> 2 nvlink alpha 0.3 beta 23.0
  coll.link 2 -> 3 nvlink alpha 0.3 beta 23.0
  coll.link 3 -> 0 nvlink alpha 0.3 beta 23.0
}

coll.sketch @s symmetry [(16, 32)]
coll.collective @ag allgather ranks 4 chunkup 1 size 4096 on @ring4
