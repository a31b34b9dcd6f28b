// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @gather_float_indices(%x: tensor<5x4xf32>, %i: tensor<2xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather' op indices must hold i32 or i64, got f32
  %a = tg.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @gather_unsigned_indices(%x: tensor<5x4xf32>, %i: tensor<2xui64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather' op indices must hold i32 or i64, got ui64
  %a = tg.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2xui64>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @gather_axis(%x: tensor<5x4xf32>, %i: tensor<2xi64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather' op axis 2 must be in [0, 2)
  %a = tg.gather %x, %i {axis = 2 : i64} : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<5x4xf32>
  func.return
}

// -----

func.func @gather_result(%x: tensor<5x4xf32>, %i: tensor<2xi64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather' op result type should be tensor<5x2xf32>, got tensor<2x5xf32>
  %a = tg.gather %x, %i {axis = 1 : i64} : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x5xf32>
  func.return
}

// -----

func.func @gather_elements_scalar(%x: tensor<f32>, %i: tensor<i64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather_elements' op data must have rank >= 1
  %a = tg.gather_elements %x, %i {axis = 0 : i64} : (tensor<f32>, tensor<i64>) -> tensor<f32>
  func.return
}

// -----

func.func @gather_elements_axis(%x: tensor<5x4xf32>, %i: tensor<5x4xi64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather_elements' op axis -1 must be in [0, 2)
  %a = tg.gather_elements %x, %i {axis = -1 : i64} : (tensor<5x4xf32>, tensor<5x4xi64>) -> tensor<5x4xf32>
  func.return
}

// -----

func.func @gather_elements_rank(%x: tensor<5x4xf32>, %i: tensor<5xi64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather_elements' op indices tensor<5xi64> must have the rank of data tensor<5x4xf32>
  %a = tg.gather_elements %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<5xi64>) -> tensor<5xf32>
  func.return
}

// -----

func.func @gather_elements_wide(%x: tensor<5x4xf32>, %i: tensor<2x6xi64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather_elements' op indices tensor<2x6xi64> exceed data tensor<5x4xf32> outside axis 0
  %a = tg.gather_elements %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x6xi64>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @gather_nd_scalar_indices(%x: tensor<5x4xf32>, %i: tensor<i64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather_nd' op indices must have rank >= 1
  %a = tg.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<5x4xf32>, tensor<i64>) -> tensor<f32>
  func.return
}

// -----

func.func @gather_nd_batch_dims(%x: tensor<5x4xf32>, %i: tensor<5x1xi64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather_nd' op batch_dims 2 must be in [0, 2)
  %a = tg.gather_nd %x, %i {batch_dims = 2 : i64} : (tensor<5x4xf32>, tensor<5x1xi64>) -> tensor<5xf32>
  func.return
}

// -----

func.func @gather_nd_batch_shape(%x: tensor<5x4xf32>, %i: tensor<3x1xi64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather_nd' op the batch dims of data tensor<5x4xf32> and indices tensor<3x1xi64> differ
  %a = tg.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<5x4xf32>, tensor<3x1xi64>) -> tensor<3xf32>
  func.return
}

// -----

func.func @gather_nd_tuple(%x: tensor<5x4xf32>, %i: tensor<3x3xi64>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.gather_nd' op index tuples of length 3 do not fit data tensor<5x4xf32> after 0 batch dims
  %a = tg.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<5x4xf32>, tensor<3x3xi64>) -> tensor<3xf32>
  func.return
}

// -----

func.func @scatter_indices(%x: tensor<4xf32>, %i: tensor<2xi16>, %u: tensor<2xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.scatter_elements' op indices must hold i32 or i64, got i16
  %a = tg.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<4xf32>, tensor<2xi16>, tensor<2xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @scatter_updates_type(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf16>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.scatter_elements' op data and updates must have the same element type, got f32 and f16
  %a = tg.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf16>) -> tensor<4xf32>
  func.return
}

// -----

func.func @scatter_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.scatter_elements' op property 'reduction' must be one of 'none', 'add', 'mul', 'max', 'min', got "sub"
  %a = tg.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "sub"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @scatter_bool_add(%x: tensor<4xi1>, %i: tensor<2xi64>, %u: tensor<2xi1>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.scatter_nd' op reduction "add" does not take booleans
  %a = tg.scatter_nd %x, %i, %u {reduction = "add"} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
  func.return
}

// -----

func.func @scatter_elements_updates(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<3x2xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.scatter_elements' op updates tensor<3x2xf32> must have the shape of indices tensor<2x3xi64>
  %a = tg.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "add"} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<3x2xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @scatter_nd_scalar_indices(%x: tensor<4xf32>, %i: tensor<i64>, %u: tensor<f32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.scatter_nd' op indices must have rank >= 1
  %a = tg.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4xf32>, tensor<i64>, tensor<f32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @scatter_nd_tuple(%x: tensor<4xf32>, %i: tensor<3x2xi64>, %u: tensor<3xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.scatter_nd' op index tuples of length 2 do not fit data tensor<4xf32>
  %a = tg.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4xf32>, tensor<3x2xi64>, tensor<3xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @scatter_nd_updates(%x: tensor<4x5xf32>, %i: tensor<3x1xi64>, %u: tensor<3xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.scatter_nd' op updates must have shape [3, 5], got tensor<3xf32>
  %a = tg.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4x5xf32>, tensor<3x1xi64>, tensor<3xf32>) -> tensor<4x5xf32>
  func.return
}

// -----

func.func @trilu_rank(%x: tensor<4xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.trilu' op trilu needs rank >= 2, got tensor<4xf32>
  %a = tg.trilu %x {upper = true, k = 0 : i64} : tensor<4xf32> -> tensor<4xf32>
  func.return
}

// -----

func.func @one_hot_bool_indices(%i: tensor<3xi1>, %v: tensor<2xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.one_hot' op indices must be numeric, got i1
  %a = tg.one_hot %i, %v {axis = 1 : i64, depth = 4 : i64} : (tensor<3xi1>, tensor<2xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @one_hot_values(%i: tensor<3xi64>, %v: tensor<3xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.one_hot' op values must have shape [2] (off, on), got tensor<3xf32>
  %a = tg.one_hot %i, %v {axis = 1 : i64, depth = 4 : i64} : (tensor<3xi64>, tensor<3xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @one_hot_axis(%i: tensor<3xi64>, %v: tensor<2xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.one_hot' op axis 2 must be in [0, 1]
  %a = tg.one_hot %i, %v {axis = 2 : i64, depth = 4 : i64} : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @one_hot_depth(%i: tensor<3xi64>, %v: tensor<2xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.one_hot' op depth must be non-negative, got -4
  %a = tg.one_hot %i, %v {axis = 1 : i64, depth = -4 : i64} : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x0xf32>
  func.return
}
