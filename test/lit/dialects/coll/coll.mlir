// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: coll.topology @two gpus 4 per_node 2 {
// CHECK-NEXT:    coll.link 0 -> 1 nvlink alpha 3.000000e-01 beta 2.300000e+01 {lanes = 2 : i64}
// CHECK-NEXT:    coll.link 0 -> 2 ib alpha 2.600000e+00 beta 1.050000e+02
// CHECK:         coll.nic @n0 gpus [0, 1]
// CHECK:       coll.collective @ag allgather ranks 4 chunkup 2 size 1048576 on @two
// CHECK:       coll.sketch @sk nodes 2 conn [(0, 0)] symmetry [(2, 4)] chunkup 2 switch_policy "uc-max"
// CHECK:       coll.sketch @dm conn direct_map
coll.topology @two gpus 4 per_node 2 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0 {lanes = 2 : i64}
  coll.link 0 -> 2 ib alpha 2.6 beta 105.0
  coll.link 1 -> 0 nvlink alpha 0.3 beta 23.0 {lanes = 2 : i64}
  coll.link 2 -> 0 ib alpha 2.6 beta 105.0
  coll.link 2 -> 3 nvlink alpha 0.3 beta 23.0
  coll.link 3 -> 2 nvlink alpha 0.3 beta 23.0
  coll.nic @n0 gpus [0, 1]
  coll.nic @n1 gpus [2, 3]
}
coll.collective @ag allgather ranks 4 chunkup 2 size 1048576 on @two
coll.sketch @sk nodes 2 conn [(0, 0)] symmetry [(2, 4)] chunkup 2 switch_policy "uc-max"
coll.sketch @dm conn direct_map

// -----

// CHECK-LABEL: coll.algorithm @ag2 allgather ranks 2 chunkup 1 on @pair proto Simple {
// CHECK-NEXT:    coll.gpu 0 in 1 out 2 scratch 0 {
// CHECK-NEXT:      coll.threadblock send 1 recv -1 channel 0 {
// CHECK-NEXT:        coll.send i[0] x 1
// CHECK:           coll.threadblock send -1 recv 1 channel 0 {
// CHECK-NEXT:        coll.recv o[1] x 1
// CHECK:           coll.threadblock send -1 recv -1 channel 0 {
// CHECK-NEXT:        coll.copy i[0] -> o[0] x 1
// CHECK-NEXT:        coll.nop deps [(1, 0)]
coll.algorithm @ag2 allgather ranks 2 chunkup 1 on @pair proto Simple {
  coll.gpu 0 in 1 out 2 scratch 0 {
    coll.threadblock send 1 recv -1 channel 0 {
      coll.send i[0] x 1
      coll.send i[0] x 1
    }
    coll.threadblock send -1 recv 1 channel 0 {
      coll.recv o[1] x 1
    }
    coll.threadblock send -1 recv -1 channel 0 {
      coll.copy i[0] -> o[0] x 1
      coll.nop deps [(1, 0)]
    }
  }
  coll.gpu 1 in 1 out 2 scratch 1 {
    coll.threadblock send 0 recv -1 channel 0 {
      coll.send i[0] x 1
    }
    coll.threadblock send -1 recv 0 channel 0 {
      coll.recv_reduce_copy i[0] -> s[0] x 1
      coll.recv o[0] x 1
    }
    coll.threadblock send -1 recv -1 channel 1 {
      coll.reduce i[0] -> s[0] x 1 deps [(1, 0)]
      coll.copy i[0] -> o[1] x 1
    }
  }
}
// CHECK:           coll.recv_reduce_copy i[0] -> s[0] x 1
// CHECK:           coll.reduce i[0] -> s[0] x 1 deps [(1, 0)]
