// RUN: %tessel-opt %s -p tg-fuse,tg-plan-memory,tg-to-kernel,kernel-to-loops --split-input-file | filecheck %s

// kernel-to-loops replaces every kernel.compute by a kernel.launch of a stage function
// that holds the stage's loops under the default schedule. What the checks pin, because
// the CPU's speed and correctness hang on it:
//   - the stage function's signature: the buffers the stage reads or writes (kernel
//     arguments, then temporaries, in the kernel's order), then [lo, hi) of the parallel
//     loop; `over N` on the launch is that loop's trip count (1 when nothing is parallel);
//   - the schedule string, and that the loops follow it: a parallel outer loop from lo
//     to hi once a stage has >= 4096 points of work, the innermost spatial axis in
//     512-bit vectors (16 x f32) or the widest power of two >= 4 that divides it (so
//     there is never a vector tail), else scalar code;
//   - loads classified per access: contiguous (vector.load), uniform (scalar load then
//     broadcast), gathered (one load per lane), padded (masked, or clamped + select);
//   - reductions: a register tile of up to 14 rows x one vector of accumulators kept
//     in an alloca, updated with contractable mulf + addf per unrolled row; or, without
//     a vector axis, a scalar accumulator carried through scf.for iter_args.

// Element-wise, 64x64 = 4096 points: i0 is parallel (the launch covers 64 rows), i1 is
// 4 vectors of 16 lanes; relu's constant is broadcast.
// CHECK-LABEL: func.func @k0_relu__s0(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<64x64xf32>, %[[Y:[a-z0-9_]+]]: memref<64x64xf32>, %[[LO:[a-z0-9_]+]]: index, %[[HI:[a-z0-9_]+]]: index)
// CHECK-SAME:    attributes {kernel.stage, kernel.schedule = "i0/1x64:parallel i1/16x4 i1/1x16:vector"}
// CHECK:         scf.for %[[I0:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step
// CHECK:           %[[C4:[a-z0-9_]+]] = arith.constant 4 : index
// CHECK:           scf.for %[[I1:[a-z0-9_]+]] = %{{.*}} to %[[C4]] step
// CHECK-NEXT:        %[[C16:[a-z0-9_]+]] = arith.constant 16 : index
// CHECK-NEXT:        %[[J:[a-z0-9_]+]] = arith.muli %[[I1]], %[[C16]] : index
// CHECK-NEXT:        %[[V:[a-z0-9_]+]] = vector.load %[[X]][%[[I0]], %[[J]]] : memref<64x64xf32>, vector<16xf32>
// CHECK-NEXT:        %[[Z:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        %[[ZV:[a-z0-9_]+]] = vector.broadcast %[[Z]] : f32 to vector<16xf32>
// CHECK-NEXT:        %[[R:[a-z0-9_]+]] = arith.maximumf %[[V]], %[[ZV]] : vector<16xf32>
// CHECK-NEXT:        vector.store %[[R]], %[[Y]][%[[I0]], %[[J]]] : memref<64x64xf32>, vector<16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @k0_relu(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<64x64xf32>, %[[B:[a-z0-9_]+]]: memref<64x64xf32>) attributes {kernel.kernel} {
// CHECK-NEXT:    kernel.launch @k0_relu__s0(%[[A]], %[[B]]) over 64 : i64 : memref<64x64xf32>, memref<64x64xf32>
// CHECK-NEXT:    func.return
// CHECK-NOT:     kernel.compute
// CHECK-LABEL: func.func @main(
// CHECK:         func.call @k0_relu(
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = tg.relu %x : tensor<64x64xf32>
  func.return %a : tensor<64x64xf32>
}

// -----

// Rows that 16 does not divide: 20 takes two vectors of 16, the second moved back to end at
// the row's end (elements 4..19: 4 to 15 are computed twice, the same way), not five of 4
// (the widest power of two that divides 20: a quarter of each vector); 6 has no
// power-of-two divisor >= 4 and takes two vectors of 4 the same way. Small stages are not
// parallel (over 1).
// CHECK-LABEL: func.func @k0_exp__s0(
// CHECK-SAME:    kernel.schedule = "i0/1x2 i1/16x2:clamp i1/1x16:vector"
// CHECK-NOT:     %lo to
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:           scf.for %[[J:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[AT0:[a-z0-9_]+]] = arith.muli %[[J]], %{{.*}} : index
// CHECK-NEXT:      %[[LAST0:[a-z0-9_]+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[S0:[a-z0-9_]+]] = arith.minsi %[[AT0]], %[[LAST0]] : index
// CHECK-NEXT:      vector.load %{{.*}}[%{{.*}}, %[[S0]]] : memref<2x20xf32>, vector<16xf32>
// CHECK-NEXT:      math.exp %{{.*}} : vector<16xf32>
// CHECK-NEXT:      vector.store %{{.*}}[%{{.*}}, %[[S0]]] : memref<2x20xf32>, vector<16xf32>
// CHECK-LABEL: func.func @k0_exp(
// CHECK-NEXT:    kernel.launch @k0_exp__s0(%{{.*}}, %{{.*}}) over 1 : i64
// CHECK-LABEL: func.func @k1_exp__s0(
// CHECK-SAME:    kernel.schedule = "i0/1x2 i1/4x2:clamp i1/1x4:vector"
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:           scf.for %[[I1:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step
// CHECK:             %[[AT:[a-z0-9_]+]] = arith.muli %[[I1]], %{{.*}} : index
// CHECK-NEXT:      %[[LAST:[a-z0-9_]+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = arith.minsi %[[AT]], %[[LAST]] : index
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = vector.load %{{.*}}[%{{.*}}, %[[S]]] : memref<2x6xf32>, vector<4xf32>
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = math.exp %[[V]] : vector<4xf32>
// CHECK-NEXT:      vector.store %[[E]], %{{.*}}[%{{.*}}, %[[S]]] : memref<2x6xf32>, vector<4xf32>
// CHECK-LABEL: func.func @k1_exp(
func.func @main(%x: tensor<2x20xf32>, %y: tensor<2x6xf32>) -> (tensor<2x20xf32>, tensor<2x6xf32>) {
  %a = tg.exp %x : tensor<2x20xf32>
  %b = tg.exp %y : tensor<2x6xf32>
  func.return %a, %b : tensor<2x20xf32>, tensor<2x6xf32>
}

// -----

// A padded contiguous load (tg.pad's kernel.load ... pad 0) becomes one masked vector
// load: lanes j with 0 <= base + j < 14 (base = 16 * i1 - 1) are read, the others take
// the pad value. The mask is [0, clamp(14 - base)) minus [0, clamp(-base)), built from
// vector.create_mask (xDSL's cmpi has no vector form).
// CHECK-LABEL: func.func @k0_pad__s0(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<4x14xf32>, %[[Y:[a-z0-9_]+]]: memref<4x16xf32>
// CHECK-SAME:    kernel.schedule = "i0/1x4 i1/16x1 i1/1x16:vector"
// CHECK:         %[[J:[a-z0-9_]+]] = arith.muli %{{.*}}, %[[C16:[a-z0-9_]+]] : index
// CHECK-NEXT:    %[[PAD:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[M1:[a-z0-9_]+]] = arith.constant -1 : index
// CHECK-NEXT:    %[[BASE:[a-z0-9_]+]] = arith.addi %[[J]], %[[M1]] : index
// CHECK-NEXT:    %[[N:[a-z0-9_]+]] = arith.constant 14 : index
// CHECK-NEXT:    %[[REST:[a-z0-9_]+]] = arith.subi %[[N]], %[[BASE]] : index
// CHECK:         %[[HIGH:[a-z0-9_]+]] = arith.minsi %{{.*}}, %[[C16]] : index
// CHECK:         %[[NEG:[a-z0-9_]+]] = arith.subi %{{.*}}, %[[BASE]] : index
// CHECK:         %[[LOW:[a-z0-9_]+]] = arith.minsi %{{.*}}, %[[C16]] : index
// CHECK-NEXT:    %[[UPPER:[a-z0-9_]+]] = vector.create_mask %[[HIGH]] : vector<16xi1>
// CHECK-NEXT:    %[[BELOW:[a-z0-9_]+]] = vector.create_mask %[[LOW]] : vector<16xi1>
// CHECK-NEXT:    %[[ALL:[a-z0-9_]+]] = vector.create_mask %[[C16]] : vector<16xi1>
// CHECK-NEXT:    %[[NOTBELOW:[a-z0-9_]+]] = arith.xori %[[BELOW]], %[[ALL]] : vector<16xi1>
// CHECK-NEXT:    %[[MASK:[a-z0-9_]+]] = arith.andi %[[UPPER]], %[[NOTBELOW]] : vector<16xi1>
// CHECK-NEXT:    %[[PASS:[a-z0-9_]+]] = vector.broadcast %[[PAD]] : f32 to vector<16xf32>
// CHECK-NEXT:    %[[V:[a-z0-9_]+]] = vector.maskedload %[[X]][%{{.*}}, %[[BASE]]], %[[MASK]], %[[PASS]] : memref<4x14xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK-NEXT:    vector.store %[[V]], %[[Y]][%{{.*}}, %[[J]]] : memref<4x16xf32>, vector<16xf32>
func.func @main(%x: tensor<4x14xf32>) -> tensor<4x16xf32> {
  %a = tg.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "constant"} : tensor<4x14xf32> -> tensor<4x16xf32>
  func.return %a : tensor<4x16xf32>
}

// -----

// A transpose reads along the column, which is not contiguous in the lanes, but the rows
// are: the stage tiles both axes by 16 and transposes in registers (transpose_tile.py):
// 16 contiguous row loads, 64 shuffles (Eklundh's swaps of halves, quarters, pairs and
// single lanes), 16 contiguous stores, and no scalar load.
// CHECK-LABEL: func.func @k0_transpose__s0(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<16x16xf32>, %[[Y:[a-z0-9_]+]]: memref<16x16xf32>
// CHECK-SAME:    kernel.schedule = "i0/16x1 i1/16x1 i0/1x16:unroll i1/1x16:vector"
// CHECK-NOT:     memref.load
// CHECK-COUNT-16: vector.load %[[X]][%{{.*}}, %{{.*}}] : memref<16x16xf32>, vector<16xf32>
// CHECK-NEXT:    vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23] : vector<16xf32>, vector<16xf32>
// CHECK-COUNT-62: vector.shuffle
// CHECK:         vector.shuffle %{{.*}}, %{{.*}} [1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31]
// CHECK-NOT:     vector.shuffle
// CHECK-COUNT-16: vector.store %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}] : memref<16x16xf32>, vector<16xf32>
// CHECK-NOT:     memref.load
func.func @main(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %t = tg.transpose %x {perm = array<i64: 1, 0>} : tensor<16x16xf32> -> tensor<16x16xf32>
  func.return %t : tensor<16x16xf32>
}

// -----

// A matmul's register tile: 14 rows (the largest divisor of 28 up to 14) by one vector
// of 16 columns, accumulated in 14 vector slots across the whole k loop, then stored
// once. 28 x 16 x 16 multiply-adds is enough work to run the 2 row blocks in parallel.
// Each tile row reads A[row, k] once (broadcast) and B[k, 16 columns] as a vector.
// CHECK-LABEL: func.func @k0_matmul__s0(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<28x16xf32>, %[[B:[a-z0-9_]+]]: memref<16x16xf32>, %[[Y:[a-z0-9_]+]]: memref<28x16xf32>, %[[LO:[a-z0-9_]+]]: index, %[[HI:[a-z0-9_]+]]: index)
// CHECK-SAME:    kernel.schedule = "o0/14x2:parallel o1/16x1 |acc| k/1x16 o0/1x14:unroll o1/1x16:vector"
// CHECK:         scf.for %[[O0:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step
// CHECK:           %[[ACC:[a-z0-9_]+]] = memref.alloca() : memref<14xvector<16xf32>>
// CHECK-NEXT:      %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[INIT:[a-z0-9_]+]] = vector.broadcast %[[ZERO]] : f32 to vector<16xf32>
// CHECK-COUNT-14:  memref.store %[[INIT]], %[[ACC]][%{{.*}}] : memref<14xvector<16xf32>>
// CHECK:           scf.for %[[K:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[ROW:[a-z0-9_]+]] = arith.muli %[[O0]], %{{.*}} : index
// CHECK:             %[[AV:[a-z0-9_]+]] = memref.load %[[A]][%[[ROW]], %[[K]]] : memref<28x16xf32>
// CHECK-NEXT:        %[[BV:[a-z0-9_]+]] = vector.load %[[B]][%[[K]], %{{.*}}] : memref<16x16xf32>, vector<16xf32>
// CHECK-NEXT:        %[[AB:[a-z0-9_]+]] = vector.broadcast %[[AV]] : f32 to vector<16xf32>
// CHECK-NEXT:        %[[P:[a-z0-9_]+]] = arith.mulf %[[AB]], %[[BV]] fastmath<contract> : vector<16xf32>
// CHECK-NEXT:        %[[S0:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT:        %[[OLD:[a-z0-9_]+]] = memref.load %[[ACC]][%[[S0]]] : memref<14xvector<16xf32>>
// CHECK-NEXT:        %[[NEW:[a-z0-9_]+]] = arith.addf %[[OLD]], %[[P]] fastmath<contract> : vector<16xf32>
// CHECK-NEXT:        memref.store %[[NEW]], %[[ACC]][%[[S0]]] : memref<14xvector<16xf32>>
// CHECK-COUNT-13:    arith.addf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK-NOT:         arith.addf
// CHECK:           }
// CHECK-NEXT:      %[[T0:[a-z0-9_]+]] = memref.load %[[ACC]][%{{.*}}] : memref<14xvector<16xf32>>
// CHECK-COUNT-14:  vector.store %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}] : memref<28x16xf32>, vector<16xf32>
// CHECK-LABEL: func.func @k0_matmul(
// CHECK-NEXT:    kernel.launch @k0_matmul__s0(%{{.*}}, %{{.*}}, %{{.*}}) over 2 : i64
func.func @main(%a: tensor<28x16xf32>, %b: tensor<16x16xf32>) -> tensor<28x16xf32> {
  %y = tg.matmul %a, %b : (tensor<28x16xf32>, tensor<16x16xf32>) -> tensor<28x16xf32>
  func.return %y : tensor<28x16xf32>
}

// -----

// Softmax: a stage function takes only the buffers its stage touches (s0 reads x and
// writes %max; s2 and s3 never see x or %max), and the kernel launches the stages in order
// around the allocations. The row max has no vector axis (extent 1), so it is a scalar reduction:
// the accumulator starts at -inf and is carried through iter_args. exp(x - max) is
// written to the output (s1), summed (s2), and the output scaled in place by 1 / sum (s3);
// max and sum do not depend on the lane: one scalar load, broadcast.
// CHECK-LABEL: func.func @k0_softmax__s0(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x16xf32>, %[[MAX:[a-z0-9_]+]]: memref<2x1xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME:    kernel.schedule = "o0/1x2 o1/1x1 r0/1x16"
// CHECK:         scf.for %[[O0:[a-z0-9_]+]] =
// CHECK:           scf.for %[[O1:[a-z0-9_]+]] =
// CHECK-NEXT:        %[[NINF:[a-z0-9_]+]] = arith.constant 0xff800000 : f32
// CHECK:             %[[RED:[a-z0-9_]+]] = scf.for %[[R0:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[IT:[a-z0-9_]+]] = %[[NINF]]) -> (f32) {
// CHECK-NEXT:          %[[V:[a-z0-9_]+]] = memref.load %[[X]][%[[O0]], %[[R0]]] : memref<2x16xf32>
// CHECK-NEXT:          %[[M:[a-z0-9_]+]] = arith.maximumf %[[IT]], %[[V]] : f32
// CHECK-NEXT:          scf.yield %[[M]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        memref.store %[[RED]], %[[MAX]][%[[O0]], %[[O1]]] : memref<2x1xf32>
// CHECK-LABEL: func.func @k0_softmax__s1(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x16xf32>, %[[Y:[a-z0-9_]+]]: memref<2x16xf32>, %[[MAX:[a-z0-9_]+]]: memref<2x1xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME:    kernel.schedule = "i0/1x2 i1/16x1 i1/1x16:vector"
// CHECK:         %[[XV:[a-z0-9_]+]] = vector.load %[[X]][%[[I0:[a-z0-9_]+]], %{{.*}}] : memref<2x16xf32>, vector<16xf32>
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:    %[[MV:[a-z0-9_]+]] = memref.load %[[MAX]][%[[I0]], %{{.*}}] : memref<2x1xf32>
// CHECK-NEXT:    %[[MB:[a-z0-9_]+]] = vector.broadcast %[[MV]] : f32 to vector<16xf32>
// CHECK-NEXT:    %[[D:[a-z0-9_]+]] = arith.subf %[[XV]], %[[MB]] : vector<16xf32>
// CHECK-NEXT:    %[[E:[a-z0-9_]+]] = math.exp %[[D]] : vector<16xf32>
// CHECK-NEXT:    vector.store %[[E]], %[[Y]][%[[I0]], %{{.*}}] : memref<2x16xf32>, vector<16xf32>
// CHECK-LABEL: func.func @k0_softmax__s2(
// CHECK-SAME:    %{{.*}}: memref<2x16xf32>, %{{.*}}: memref<2x1xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK:         arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-LABEL: func.func @k0_softmax__s3(
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<2x16xf32>, %[[SUM:[a-z0-9_]+]]: memref<2x1xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK:         %[[SV:[a-z0-9_]+]] = memref.load %[[SUM]][%[[I0:[a-z0-9_]+]], %{{.*}}] : memref<2x1xf32>
// CHECK-NEXT:    %[[R:[a-z0-9_]+]] = arith.divf %{{.*}}, %[[SV]] : f32
// CHECK-NEXT:    %[[EV:[a-z0-9_]+]] = vector.load %[[Y]][%[[I0]], %{{.*}}] : memref<2x16xf32>, vector<16xf32>
// CHECK-NEXT:    %[[RB:[a-z0-9_]+]] = vector.broadcast %[[R]] : f32 to vector<16xf32>
// CHECK-NEXT:    %[[Q:[a-z0-9_]+]] = arith.mulf %[[EV]], %[[RB]] : vector<16xf32>
// CHECK-NEXT:    vector.store %[[Q]], %[[Y]][%[[I0]], %{{.*}}] : memref<2x16xf32>, vector<16xf32>
// CHECK-LABEL: func.func @k0_softmax(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x16xf32>, %[[Y:[a-z0-9_]+]]: memref<2x16xf32>) attributes {kernel.kernel} {
// CHECK-NEXT:    %[[MAX:[a-z0-9_]+]] = memref.alloc() : memref<2x1xf32>
// CHECK-NEXT:    kernel.launch @k0_softmax__s0(%[[X]], %[[MAX]]) over 1 : i64
// CHECK-NEXT:    kernel.launch @k0_softmax__s1(%[[X]], %[[Y]], %[[MAX]]) over 1 : i64
// CHECK-NEXT:    %[[SUM:[a-z0-9_]+]] = memref.alloc() : memref<2x1xf32>
// CHECK-NEXT:    kernel.launch @k0_softmax__s2(%[[Y]], %[[SUM]]) over 1 : i64
// CHECK-NEXT:    kernel.launch @k0_softmax__s3(%[[Y]], %[[SUM]]) over 1 : i64
// CHECK-NEXT:    memref.dealloc %[[MAX]] : memref<2x1xf32>
// CHECK-NEXT:    memref.dealloc %[[SUM]] : memref<2x1xf32>
// CHECK-NEXT:    func.return
func.func @main(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %y = tg.softmax %x {axis = 1 : i64} : tensor<2x16xf32>
  func.return %y : tensor<2x16xf32>
}

// -----

// Scalar max pooling with padding: the window index 2 * o - 1 + t may fall outside
// [0, 5), so each tap clamps its index into the buffer (never a wild read), loads, and
// selects -inf where it was outside; the max starts from -inf in iter_args.
// CHECK-LABEL: func.func @k0_max_pool2d__s0(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x2x5x5xf32>, %[[Y:[a-z0-9_]+]]: memref<1x2x3x3xf32>
// CHECK-SAME:    kernel.schedule = "o0/1x1 o1/1x2 o2/1x3 o3/1x3 t0/1x3 t1/1x3"
// CHECK:         %[[INIT:[a-z0-9_]+]] = arith.constant 0xff800000 : f32
// CHECK:         %[[R:[a-z0-9_]+]] = scf.for %[[T0:[a-z0-9_]+]] = %{{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32) {
// CHECK:           scf.for %[[T1:[a-z0-9_]+]] = %{{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:        %[[PAD:[a-z0-9_]+]] = arith.constant 0xff800000 : f32
// CHECK:             %[[H:[a-z0-9_]+]] = arith.addi %{{.*}}, %[[T0]] : index
// CHECK:             %[[W:[a-z0-9_]+]] = arith.addi %{{.*}}, %[[T1]] : index
// CHECK-NEXT:        %[[C0:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT:        %[[HGE:[a-z0-9_]+]] = arith.cmpi sge, %[[H]], %[[C0]] : index
// CHECK-NEXT:        %[[C5:[a-z0-9_]+]] = arith.constant 5 : index
// CHECK-NEXT:        %[[HLT:[a-z0-9_]+]] = arith.cmpi slt, %[[H]], %[[C5]] : index
// CHECK-NEXT:        %[[HOK:[a-z0-9_]+]] = arith.andi %[[HGE]], %[[HLT]] : i1
// CHECK-NEXT:        %[[HMAX:[a-z0-9_]+]] = arith.maxsi %[[H]], %[[C0]] : index
// CHECK-NEXT:        %[[C4:[a-z0-9_]+]] = arith.constant 4 : index
// CHECK-NEXT:        %[[HC:[a-z0-9_]+]] = arith.minsi %[[HMAX]], %[[C4]] : index
// CHECK:             %[[OK:[a-z0-9_]+]] = arith.andi %[[HOK]], %{{.*}} : i1
// CHECK:             %[[WC:[a-z0-9_]+]] = arith.minsi %{{.*}}, %[[C4]] : index
// CHECK-NEXT:        %[[V:[a-z0-9_]+]] = memref.load %[[X]][%{{.*}}, %{{.*}}, %[[HC]], %[[WC]]] : memref<1x2x5x5xf32>
// CHECK-NEXT:        %[[SEL:[a-z0-9_]+]] = arith.select %[[OK]], %[[V]], %[[PAD]] : f32
// CHECK-NEXT:        %[[M:[a-z0-9_]+]] = arith.maximumf %[[ACC]], %[[SEL]] : f32
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK:         memref.store %[[R]], %[[Y]][
func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// A gather whose index is data (an embedding lookup by token ids, as BERT and GPT-2 do):
// the ids are read as one contiguous vector along the vector axis, but the table index
// they give changes by an unknown amount per lane, so each lane reads the table on its
// own (bounds-checked, the pad selected outside) and the lanes are gathered into a vector.
// Treated as contiguous, the table's start index was computed on the vector<16xindex> of
// the ids and kernel-to-loops stopped on an arith op over vector<16xindex>.
// CHECK-LABEL: func.func @k0_gather__s0(
// CHECK-SAME:    %[[T:[a-z0-9_]+]]: memref<1000xf32>, %[[I:[a-z0-9_]+]]: memref<2x32xi64>, %[[Y:[a-z0-9_]+]]: memref<2x32xf32>
// CHECK-SAME:    kernel.schedule = "i0/1x2 i1/16x2 i1/1x16:vector"
// CHECK:         %[[IDS:[a-z0-9_]+]] = vector.load %[[I]][%{{.*}}, %{{.*}}] : memref<2x32xi64>, vector<16xi64>
// CHECK-NOT:     vector.load %[[T]]
// CHECK-NOT:     vector.maskedload %[[T]]
// CHECK-COUNT-16: memref.load %[[T]][%{{.*}}] : memref<1000xf32>
// CHECK-COUNT-15: vector.insert %{{.*}}, %{{.*}} [{{[0-9]+}}] : f32 into vector<16xf32>
// CHECK-NEXT:    vector.store %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}] : memref<2x32xf32>, vector<16xf32>
func.func @main(%x: tensor<1000xf32>, %i: tensor<2x32xi64>) -> tensor<2x32xf32> {
  %g = tg.gather %x, %i {axis = 0 : i64} : (tensor<1000xf32>, tensor<2x32xi64>) -> tensor<2x32xf32>
  func.return %g : tensor<2x32xf32>
}

// -----

// A stage of one kernel identical to a stage of another (the log-softmax's row max is the
// softmax's) is the same function: it takes only the buffers it uses, so neither kernel's
// other buffers change its signature, and the second is a copy of the first (lowered once;
// the LLVM emitter then compiles it once). The stages that differ are lowered on their own.
// CHECK-LABEL: func.func @k0_softmax__s0(
// CHECK-SAME:    %{{.*}}: memref<64x64xf32>, %{{.*}}: memref<64x1x16xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME:    kernel.schedule = "o0/13x5:parallel:clamp o1/1x1 rf/16x1 |acc| r0/1x4 o0/1x13:unroll rf/1x16:vector"
// CHECK-LABEL: func.func @k0_softmax(
// CHECK-LABEL: func.func @k1_log_softmax__s0(
// CHECK-SAME:    %{{.*}}: memref<64x64xf32>, %{{.*}}: memref<64x1x16xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME:    kernel.schedule = "o0/13x5:parallel:clamp o1/1x1 rf/16x1 |acc| r0/1x4 o0/1x13:unroll rf/1x16:vector"
// CHECK-LABEL: func.func @k1_log_softmax__s2(
// CHECK-SAME:    %{{.*}}: memref<64x64xf32>, %{{.*}}: memref<64x1xf32>, %{{.*}}: memref<64x1x16xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK-LABEL: func.func @k1_log_softmax(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<64x64xf32>, %[[Y:[a-z0-9_]+]]: memref<64x64xf32>)
// CHECK:         kernel.launch @k1_log_softmax__s0(%[[X]], %[[RF:[a-z0-9_]+]]) over 5 : i64
// CHECK-NEXT:    kernel.launch @k1_log_softmax__s1(%[[MAX:[a-z0-9_]+]], %[[RF]]) over 1 : i64
// CHECK:         kernel.launch @k1_log_softmax__s4(%[[X]], %[[Y]], %[[MAX]], %{{.*}}) over 64 : i64
func.func @main(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %a = tg.softmax %x {axis = 1 : i64} : tensor<64x64xf32>
  %b = tg.log_softmax %y {axis = 1 : i64} : tensor<64x64xf32>
  func.return %a, %b : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A stage that reads its own output (the softmax's scaling in place) takes whole vectors
// and masks the last one (20 = 16 + 4), never an overlapping vector: the vectors before the
// last are a loop without masks, and the last is emitted after it, masked.
// CHECK-LABEL: func.func @k0_softmax__s3(
// CHECK-SAME:    kernel.schedule = "i0/1x4 i1/16x2 i1/1x16:vector"
// CHECK:         scf.for %[[I1:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step
// CHECK-NOT:       vector.create_mask
// CHECK:           vector.load
// CHECK-NOT:       vector.create_mask
// CHECK:           vector.store
// CHECK-NEXT:    }
// CHECK:         %[[M:[a-z0-9_]+]] = vector.create_mask %{{.*}} : vector<16xi1>
// CHECK:         vector.maskedload %{{.*}}, %[[M]], %{{.*}} : memref<4x20xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK:         vector.maskedstore %{{.*}}, %[[M]], %{{.*}} : memref<4x20xf32>, vector<16xi1>, vector<16xf32>
// CHECK-LABEL: func.func @k0_softmax(
func.func @main(%x: tensor<4x20xf32>) -> tensor<4x20xf32> {
  %y = tg.softmax %x {axis = 1 : i64} : tensor<4x20xf32>
  func.return %y : tensor<4x20xf32>
}
