// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @attention_rank(%q: tensor<2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op q must have rank 4, got tensor<2x3x8xf32>
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64} : tensor<2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_integer(%q: tensor<1x2x3x8xi32>, %k: tensor<1x2x5x8xi32>, %v: tensor<1x2x5x8xi32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op q must have a float element type, got i32
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64} : tensor<1x2x3x8xi32>, tensor<1x2x5x8xi32>, tensor<1x2x5x8xi32> -> tensor<1x2x3x8xi32>
  func.return
}

// -----

func.func @attention_element_types(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf16>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op q, k and v must have the same element type
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_batch(%q: tensor<1x2x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op batch sizes differ: q 1, k 2, v 1
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64} : tensor<1x2x3x8xf32>, tensor<2x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_head_size(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op q and k head sizes differ: 8 and 4
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_kv(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x4x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op k (1, 2, 5, 8) and v (1, 2, 4, 8) differ in heads or length
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_groups(%q: tensor<1x3x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op 3 query heads are not a multiple of 2 key/value heads
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64} : tensor<1x3x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x3x3x8xf32>
  func.return
}

// -----

func.func @attention_mask_rank(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %m: tensor<1x1x1x3x5xi1>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op mask must have rank 1 to 4, got tensor<1x1x1x3x5xi1>
  %y = tg.attention %q, %k, %v mask %m : tensor<1x1x1x3x5xi1> {scale = 1.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_mask_long(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %m: tensor<3x6xi1>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op mask covers 6 keys, more than the 5 there are
  %y = tg.attention %q, %k, %v mask %m : tensor<3x6xi1> {scale = 1.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_mask_broadcast(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %m: tensor<4x5xi1>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op mask tensor<4x5xi1> does not broadcast to (1, 2, 3, 5)
  %y = tg.attention %q, %k, %v mask %m : tensor<4x5xi1> {scale = 1.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_mask_type(%q: tensor<1x2x3x8xf16>, %k: tensor<1x2x5x8xf16>, %v: tensor<1x2x5x8xf16>, %m: tensor<3x5xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op mask must be boolean or a float type that f16 holds exactly, got f32
  %y = tg.attention %q, %k, %v mask %m : tensor<3x5xf32> {scale = 1.0 : f64} : tensor<1x2x3x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16> -> tensor<1x2x3x8xf16>
  func.return
}

// -----

func.func @attention_lengths(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %n: tensor<1xi32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op lengths must be tensor<1xi64>, got tensor<1xi32>
  %y = tg.attention %q, %k, %v lengths %n : tensor<1xi32> {scale = 1.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_scale(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op scale must be positive, got -1.0
  %y = tg.attention %q, %k, %v {scale = -1.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_softcap(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op softcap must be non-negative
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64, softcap = -2.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_scores_mode(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op scores_mode must be 0, 1, 2 or 3, got 4
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64, scores_mode = 4 : i64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_offset(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op offset must be non-negative, got -1
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64, offset = -1 : i64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_offset_lengths(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %n: tensor<1xi64>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op offset and lengths exclude each other (lengths give each row its own)
  %y = tg.attention %q, %k, %v lengths %n : tensor<1xi64> {scale = 1.0 : f64, offset = 2 : i64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_window(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op left_window must be -1 (unbounded) or non-negative
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64, left_window = -2 : i64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_softmax_type(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op softmax_type must be a float type
  %y = tg.attention %q, %k, %v {scale = 1.0 : f64, softmax_type = i32} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return
}

// -----

func.func @attention_result(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK: attention-invalid.mlir:[[# @LINE + 1]]:3: error: 'tg.attention' op result #1 type should be tensor<1x2x3x5xf32>, got tensor<1x2x3x8xf32>
  %y, %p = tg.attention %q, %k, %v {scale = 1.0 : f64} : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>
  func.return
}
