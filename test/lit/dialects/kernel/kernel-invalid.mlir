// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One case per check in the verifiers of kernel.compute and kernel.load (and the
// helper that checks their kernel.yield): malformed stages must be caught at the op,
// with a one-line message at its location, before kernel-to-loops builds loops from
// them. Cases the custom syntax cannot express use the generic form.

// A then region is one block: the value to store for one output element.
func.func @then_two_blocks(%x: memref<4x3xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op the then region has at most one block
  kernel.compute "s" %y(i = 4) reduce(r = 3) combine "add" init 0.000000e+00 : f32 : memref<4xf32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%i, %r] : memref<4x3xf32>
    kernel.yield %a : f32
  } then {
  ^bb0(%i2: index, %acc: f32):
    kernel.yield %acc : f32
  ^bb1(%i3: index, %acc2: f32):
    kernel.yield %acc2 : f32
  }
  func.return
}

// -----

// Axis names are how schedules and stage dumps name loops: they must be unique.
func.func @duplicate_axis(%x: memref<4x3xf32>, %y: memref<4x3xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op axes ['i', 'i'] need unique names and one extent each, got [4, 3]
  kernel.compute "s" %y(i = 4, i = 3) : memref<4x3xf32> {
  ^bb0(%i: index, %j: index):
    %a = affine.load %x[%i, %j] : memref<4x3xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// Only the generic form can give a different number of names and extents.
func.func @extent_count(%y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op axes ['i'] need unique names and one extent each, got [4, 2]
  "kernel.compute"(%y) <{stage = "s", axes = ["i"], extents = array<i64: 4, 2>, num_reduce = 0 : i64}> ({
  ^bb0(%i: index):
    %c = arith.constant 1.0 : f32
    "kernel.yield"(%c) : (f32) -> ()
  }, {}) : (memref<4xf32>) -> ()
  func.return
}

// -----

// The custom syntax rejects a negative extent while parsing; the generic form reaches the verifier.
func.func @negative_extent(%y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op extents must be non-negative, got [4, -1]
  "kernel.compute"(%y) <{stage = "s", axes = ["i", "r"], extents = array<i64: 4, -1>, num_reduce = 1 : i64, combine = "add", init = 0.0 : f32}> ({
  ^bb0(%i: index, %r: index):
    %c = arith.constant 1.0 : f32
    "kernel.yield"(%c) : (f32) -> ()
  }, {}) : (memref<4xf32>) -> ()
  func.return
}

// -----

// A stage defines every element of its output: one spatial axis per dim, same extent.
func.func @shape(%x: memref<4xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op spatial extents [5] must equal the output shape [4]
  kernel.compute "s" %y(i = 5) : memref<4xf32> {
  ^bb0(%i: index):
    %a = affine.load %x[%i] : memref<4xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// The body's block arguments are the axes, in order.
func.func @body_args(%x: memref<4xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op the body takes one index argument per axis
  kernel.compute "s" %y(i = 4) : memref<4xf32> {
  ^bb0(%i: index, %j: index):
    %a = affine.load %x[%i] : memref<4xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// The body computes one term.
func.func @body_yield(%x: memref<4xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op the body must end in kernel.yield of one value
  kernel.compute "s" %y(i = 4) : memref<4xf32> {
  ^bb0(%i: index):
    %a = affine.load %x[%i] : memref<4xf32>
    kernel.yield %a, %a : f32, f32
  }
  func.return
}

// -----

// Without reduction axes the body's value is stored directly: a then region would be ignored.
func.func @then_without_reduce(%x: memref<4xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op a stage without reduction axes takes no combine, init or then region
  kernel.compute "s" %y(i = 4) : memref<4xf32> {
  ^bb0(%i: index):
    %a = affine.load %x[%i] : memref<4xf32>
    kernel.yield %a : f32
  } then {
  ^bb0(%i2: index, %acc: f32):
    kernel.yield %acc : f32
  }
  func.return
}

// -----

// Without a then region nothing converts the body's value to the element type.
func.func @yield_type(%x: memref<4xf32>, %y: memref<4xf16>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op the body yields f32, the output holds f16
  kernel.compute "s" %y(i = 4) : memref<4xf16> {
  ^bb0(%i: index):
    %a = affine.load %x[%i] : memref<4xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// Only combiners the loop builder can emit are allowed.
func.func @combiner(%x: memref<4x3xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op combine must be one of add, mul, max, min, umax, umin, got avg
  kernel.compute "s" %y(i = 4) reduce(r = 3) combine "avg" init 0.000000e+00 : f32 : memref<4xf32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%i, %r] : memref<4x3xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// The accumulator starts at init and holds the body's type.
func.func @init_type(%x: memref<4x3xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op init must be a f32 value, got 0 : i32
  kernel.compute "s" %y(i = 4) reduce(r = 3) combine "add" init 0 : i32 : memref<4xf32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%i, %r] : memref<4x3xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// An f32 accumulator needs a then region to be narrowed into an f16 output.
func.func @reduce_needs_then(%x: memref<4x3xf32>, %y: memref<4xf16>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op the body yields f32 but the output holds f16; add a then region
  kernel.compute "s" %y(i = 4) reduce(r = 3) combine "add" init 0.000000e+00 : f32 : memref<4xf16> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%i, %r] : memref<4x3xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// The then region sees the spatial indices (not the reduction ones) and the accumulator.
func.func @then_args(%x: memref<4x3xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op the then region takes the spatial indices and the reduced value
  kernel.compute "s" %y(i = 4) reduce(r = 3) combine "add" init 0.000000e+00 : f32 : memref<4xf32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%i, %r] : memref<4x3xf32>
    kernel.yield %a : f32
  } then {
  ^bb0(%acc: f32):
    kernel.yield %acc : f32
  }
  func.return
}

// -----

// The then region yields the stored element, of the output's element type.
func.func @then_yield_type(%x: memref<4x3xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op the then region must yield f32
  kernel.compute "s" %y(i = 4) reduce(r = 3) combine "add" init 0.000000e+00 : f32 : memref<4xf32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%i, %r] : memref<4x3xf32>
    kernel.yield %a : f32
  } then {
  ^bb0(%i2: index, %acc: f32):
    %t = arith.truncf %acc : f32 to f16
    kernel.yield %t : f16
  }
  func.return
}

// -----

// The then region yields exactly one value.
func.func @then_yield_count(%x: memref<4x3xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op the then region must end in kernel.yield of one value
  kernel.compute "s" %y(i = 4) reduce(r = 3) combine "add" init 0.000000e+00 : f32 : memref<4xf32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%i, %r] : memref<4x3xf32>
    kernel.yield %a : f32
  } then {
  ^bb0(%i2: index, %acc: f32):
    kernel.yield : 
  }
  func.return
}

// -----

// kernel.load: one index per buffer dim.
func.func @load_rank(%x: memref<4x4xf32>, %y: memref<4xf32>) {
  kernel.compute "s" %y(i = 4) : memref<4xf32> {
  ^bb0(%i: index):
    // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:5: error: 'kernel.load' op the access has 1 indices for a rank-2 buffer
    %a = kernel.load %x[%i] pad 0.000000e+00 : f32 : memref<4x4xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// Generic form only: the map's dims and symbols must match the index operands.
func.func @load_operands(%x: memref<4xf32>, %y: memref<4xf32>) {
  kernel.compute "s" %y(i = 4) : memref<4xf32> {
  ^bb0(%i: index):
    // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:5: error: 'kernel.load' op the access map does not match its index operands
    %a = "kernel.load"(%x, %i, %i) <{map = affine_map<(d0) -> (d0)>, pad = 0.0 : f32, operandSegmentSizes = array<i32: 1, 2, 0>}> : (memref<4xf32>, index, index) -> f32
    kernel.yield %a : f32
  }
  func.return
}

// -----

// Generic form only: a load yields the buffer's element type (widening is explicit).
func.func @load_result(%x: memref<4xf32>, %y: memref<4xf32>) {
  kernel.compute "s" %y(i = 4) : memref<4xf32> {
  ^bb0(%i: index):
    // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:5: error: 'kernel.load' op result type f16 must be the element type f32
    %a = "kernel.load"(%x, %i) <{map = affine_map<(d0) -> (d0)>, pad = 0.0 : f32, operandSegmentSizes = array<i32: 1, 1, 0>}> : (memref<4xf32>, index) -> f16
    %b = arith.extf %a : f16 to f32
    kernel.yield %b : f32
  }
  func.return
}

// -----

// The pad value is read where the access is out of bounds: it has the element type.
func.func @load_pad(%x: memref<4xf32>, %y: memref<4xf32>) {
  kernel.compute "s" %y(i = 4) : memref<4xf32> {
  ^bb0(%i: index):
    // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:5: error: 'kernel.load' op pad must be a f32 value, got 0 : i32
    %a = kernel.load %x[%i - 1] pad 0 : i32 : memref<4xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// A parse error, not a verifier one: kernel.load reads buffers only. (The location
// is left loose: the parser reports it at the token after the type, on the next line.)
func.func @load_not_memref(%x: tensor<4xf32>, %y: memref<4xf32>) {
  kernel.compute "s" %y(i = 4) : memref<4xf32> {
  ^bb0(%i: index):
    // CHECK: kernel-invalid.mlir:{{[0-9]+:[0-9]+}}: error: expected a memref type
    %a = kernel.load %x[%i - 1] pad 0.0 : f32 : tensor<4xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// kernel.dot4 reads four bytes packed in each i32: other element types are refused.
func.func @dot4_type(%a: vector<8xi64>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.dot4' op works on i32 (four packed bytes) or vectors of i32, got vector<8xi64>
  %d = kernel.dot4 %a, %a, %a : vector<8xi64>
  func.return
}

// -----

// `lanes` names a spatial axis: a reduction axis cannot be vectorized.
func.func @lanes_reduction(%x: memref<4x2xf32>, %y: memref<4xf32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.compute' op lanes names r, not a spatial axis of ['i']
  kernel.compute "s" %y(i = 4) reduce(r = 2) combine "add" init 0.000000e+00 : f32 lanes(r) : memref<4xf32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%i, %r] : memref<4x2xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// kernel.bf16dot2 takes i32 words (two bfloat16) lane for lane with its f32 accumulator.
func.func @bf16dot2_lanes(%acc: vector<16xf32>, %a: vector<8xi32>) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.bf16dot2' op takes i32 words (two packed bfloat16) lane for lane with vector<16xf32>, got vector<8xi32>
  %d = kernel.bf16dot2 %acc, %a, %a : vector<16xf32>, vector<8xi32>
  func.return
}

// -----

func.func @bf16dot2_words(%acc: f32, %a: i16) {
  // CHECK: kernel-invalid.mlir:[[# @LINE + 1]]:3: error: 'kernel.bf16dot2' op takes i32 words (two packed bfloat16) lane for lane with f32, got i16
  %d = kernel.bf16dot2 %acc, %a, %a : f32, i16
  func.return
}
