// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// The plainest form: no mask, the default scale 1/sqrt(head size) spelled out.
// CHECK-LABEL: func.func @attention
// CHECK: %{{.*}} = tg.attention %q, %k, %v {scale = 1.250000e-01 : f64} : tensor<1x2x3x64xf32>, tensor<1x2x5x64xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
func.func @attention(%q: tensor<1x2x3x64xf32>, %k: tensor<1x2x5x64xf32>, %v: tensor<1x2x5x8xf32>) -> tensor<1x2x3x8xf32> {
  %y = tg.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x2x3x64xf32>, tensor<1x2x5x64xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  func.return %y : tensor<1x2x3x8xf32>
}

// -----

// Grouped-query attention (4 query heads over 2 key/value heads), a boolean mask shorter
// than the keys, causal with a past of 2 keys, softcap and the exposed probabilities.
// CHECK-LABEL: func.func @attention_everything
// CHECK: %{{.*}}, %{{.*}} = tg.attention %q, %k, %v mask %m : tensor<3x4xi1> {causal = true, offset = 2 : i64, scale = 2.500000e-01 : f64, scores_mode = 3 : i64, softcap = 2.000000e+00 : f64} : tensor<2x4x3x16xbf16>, tensor<2x2x5x16xbf16>, tensor<2x2x5x8xbf16> -> tensor<2x4x3x8xbf16>, tensor<2x4x3x5xbf16>
func.func @attention_everything(%q: tensor<2x4x3x16xbf16>, %k: tensor<2x2x5x16xbf16>, %v: tensor<2x2x5x8xbf16>, %m: tensor<3x4xi1>) -> tensor<2x4x3x8xbf16> {
  %y, %p = tg.attention %q, %k, %v mask %m : tensor<3x4xi1> {causal = true, offset = 2 : i64, scale = 0.25 : f64, scores_mode = 3 : i64, softcap = 2.0 : f64} : tensor<2x4x3x16xbf16>, tensor<2x2x5x16xbf16>, tensor<2x2x5x8xbf16> -> tensor<2x4x3x8xbf16>, tensor<2x4x3x5xbf16>
  func.return %y : tensor<2x4x3x8xbf16>
}

// -----

// Per-row key counts (an external cache), a float mask, a window and a float32 softmax.
// CHECK-LABEL: func.func @attention_lengths
// CHECK: %{{.*}} = tg.attention %q, %k, %v mask %m : tensor<2x1x4x6xf16> lengths %n : tensor<2xi64> {left_window = 2 : i64, right_window = 0 : i64, scale = 5.000000e-01 : f64, softmax_type = f32} : tensor<2x3x4x8xf16>, tensor<2x3x6x8xf16>, tensor<2x3x6x8xf16> -> tensor<2x3x4x8xf16>
func.func @attention_lengths(%q: tensor<2x3x4x8xf16>, %k: tensor<2x3x6x8xf16>, %v: tensor<2x3x6x8xf16>, %m: tensor<2x1x4x6xf16>, %n: tensor<2xi64>) -> tensor<2x3x4x8xf16> {
  %y = tg.attention %q, %k, %v mask %m : tensor<2x1x4x6xf16> lengths %n : tensor<2xi64> {left_window = 2 : i64, right_window = 0 : i64, scale = 0.5 : f64, softmax_type = f32} : tensor<2x3x4x8xf16>, tensor<2x3x6x8xf16>, tensor<2x3x6x8xf16> -> tensor<2x3x4x8xf16>
  func.return %y : tensor<2x3x4x8xf16>
}
