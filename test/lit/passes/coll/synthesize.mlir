// RUN: %tessel-opt %s -p 'coll-synthesize{time-limit=5},coll-verify' | filecheck %s
// RUN: %tessel-opt %s -p 'coll-synthesize{time-limit=5},coll-verify' | %tessel-translate /dev/stdin --target msccl-xml | filecheck %s --check-prefix=XML

// An ALLGATHER on a 4-GPU NVLink ring: every GPU copies its chunk into place, sends it
// both ways round the ring and forwards what arrives; coll-verify proves it.

// CHECK:      coll.collective @ag allgather ranks 4 chunkup 1 size 4096 on @ring4
// CHECK-NEXT: coll.algorithm @ag_alg allgather ranks 4 chunkup 1 on @ring4 proto Simple attributes {simulated_us = {{.*}}, sketch = "ib fully-connected, chunkup 1"} {
// CHECK-NEXT:   coll.gpu 0 in 1 out 4 scratch 0 {
// CHECK:          coll.send i[0] x 1
// CHECK:          coll.recv o[{{[123]}}] x 1
// CHECK:          coll.copy i[0] -> o[0] x 1
// CHECK:        coll.gpu 3 in 1 out 4 scratch 0 {
// CHECK:          coll.copy i[0] -> o[3] x 1

// XML:      <algo name="ag_alg" nchannels="1" nchunksperloop="4" proto="Simple" coll="allgather" inplace="0" ngpus="4">
// XML-NEXT:   <gpu id="0" i_chunks="1" o_chunks="4" s_chunks="0">
// XML-NEXT:     <tb id="0" send="1" recv="-1" chan="0">
// XML-NEXT:       <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
// XML:          <step s="0" type="r" srcbuf="{{[io]}}" srcoff="{{[0-9]}}" dstbuf="o" dstoff="{{[0-9]}}" cnt="1" depid="-1" deps="-1" hasdep="1"/>
// XML:          <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
// XML:      </algo>

coll.topology @ring4 gpus 4 per_node 4 {
  coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0
  coll.link 0 -> 3 nvlink alpha 0.3 beta 23.0
  coll.link 1 -> 2 nvlink alpha 0.3 beta 23.0
  coll.link 1 -> 0 nvlink alpha 0.3 beta 23.0
  coll.link 2 -> 3 nvlink alpha 0.3 beta 23.0
  coll.link 2 -> 1 nvlink alpha 0.3 beta 23.0
  coll.link 3 -> 0 nvlink alpha 0.3 beta 23.0
  coll.link 3 -> 2 nvlink alpha 0.3 beta 23.0
}
coll.collective @ag allgather ranks 4 chunkup 1 size 4096 on @ring4
