// RUN: not %tessel-opt %s -p 'coll-synthesize{time-limit=2}' --split-input-file 2>&1 | filecheck %s

// A sketch that lets no chunk leave its node: infeasible, said in one line.
// CHECK: error: infeasible: rank 2 cannot receive chunk 0 of rank 0: no path over the links the sketch allows
coll.topology @two gpus 4 per_node 2 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0
  coll.link 1 -> 0 nvlink alpha 0.3 beta 23.0
  coll.link 2 -> 3 nvlink alpha 0.3 beta 23.0
  coll.link 3 -> 2 nvlink alpha 0.3 beta 23.0
  coll.link 1 -> 3 ib alpha 2.6 beta 105.0
  coll.link 3 -> 1 ib alpha 2.6 beta 105.0
  coll.nic @n0 gpus [0, 1]
  coll.nic @n1 gpus [2, 3]
}
coll.collective @ag allgather ranks 4 chunkup 1 size 4096 on @two
coll.sketch @sk conn [(0, 0)]
