// RUN: %tessel-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.collective' op chunkup must be >= 1, got 0
coll.collective @c allgather ranks 4 chunkup 0 size 1024 on @t

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.collective' op only broadcast and reduce take a root, not allgather
coll.collective @c allgather ranks 4 chunkup 1 size 1024 on @t {root = 2 : i64}

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:20: error: expected a collective: allgather, reduce_scatter, allreduce, alltoall, broadcast, reduce
coll.collective @c allscatter ranks 4 chunkup 1 size 1024 on @t

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.sketch' op symmetry (16, 16) needs 0 < offset < group
coll.sketch @s symmetry [(16, 16)]

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:30: error: expected a switch policy: "uc-min", "uc-max"
coll.sketch @s switch_policy "uc-mid"

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:21: error: expected direct_map, fully_connected or [(sender, receiver), ...]
coll.sketch @s conn sideways

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.collective' op ranks must be >= 1, got 0
coll.collective @c allgather ranks 0 chunkup 1 size 1024 on @t

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.collective' op ranks must be <= 1024, got 4096
coll.collective @c allgather ranks 4096 chunkup 1 size 1024 on @t

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.collective' op chunkup must be <= 64, got 65
coll.collective @c allgather ranks 4 chunkup 65 size 1024 on @t

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.collective' op root 4 is out of range 0..3
coll.collective @c broadcast ranks 4 chunkup 1 size 1024 on @t {root = 4 : i64}

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.collective' op size must be >= 1 byte, got 0
coll.collective @c allgather ranks 4 chunkup 1 size 0 on @t

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.sketch' op chunkup must be >= 1, got 0
coll.sketch @s chunkup 0

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.sketch' op nodes must be >= 1, got 0
coll.sketch @s nodes 0

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.sketch' op conn lists no (sender, receiver) pair
coll.sketch @s conn []

// -----

// CHECK: problem-invalid.mlir:[[# @LINE + 1]]:1: error: 'coll.sketch' op conn pair (-1, 0) has a negative local GPU
coll.sketch @s conn [(-1, 0)]
