// RUN: %tessel-opt %s -p tg-fold-batchnorm --split-input-file | filecheck %s

// tg-fold-batchnorm folds an inference batch_norm into the conv2d or gemm feeding it:
//   s = scale / sqrt(var + eps), shift = bias - mean * s
//   conv2d: weight * s[:, None, None, None], bias * s + shift (or shift alone)
//   gemm:   B scaled per output column, C * s + shift / beta (or shift with beta = 1)
// The new parameters are tg ops on the old constants; tg-fold-constants evaluates them.
// It applies only when the producer has no other use and every parameter is a
// compile-time constant (tg.weight or tg.constant).

// conv2d with a bias: the batch_norm and the old conv are gone, the new conv reads the
// scaled weight and the folded bias.

// CHECK-LABEL: func.func @conv_with_bias
// CHECK-NEXT:    %w = tg.weight @w : tensor<3x2x3x3xf32>
// CHECK-NEXT:    %b = tg.weight @b : tensor<3xf32>
// CHECK-NEXT:    %scale = tg.weight @scale : tensor<3xf32>
// CHECK-NEXT:    %shift = tg.weight @shift : tensor<3xf32>
// CHECK-NEXT:    %mean = tg.weight @mean : tensor<3xf32>
// CHECK-NEXT:    %var = tg.weight @var : tensor<3xf32>
// CHECK-NEXT:    %[[EPS:[a-z0-9_]+]] = tg.constant dense<1.000000e-03> : tensor<f32>
// CHECK-NEXT:    %[[VE:[a-z0-9_]+]] = tg.add %var, %[[EPS]] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[SQ:[a-z0-9_]+]] = tg.sqrt %[[VE]] : tensor<3xf32>
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = tg.div %scale, %[[SQ]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[MS:[a-z0-9_]+]] = tg.mul %mean, %[[S]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[SHIFT:[a-z0-9_]+]] = tg.sub %shift, %[[MS]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[S4:[a-z0-9_]+]] = tg.reshape %[[S]] : tensor<3xf32> -> tensor<3x1x1x1xf32>
// CHECK-NEXT:    %w_bn = tg.mul %w, %[[S4]] : (tensor<3x2x3x3xf32>, tensor<3x1x1x1xf32>) -> tensor<3x2x3x3xf32>
// CHECK-NEXT:    %[[BS:[a-z0-9_]+]] = tg.mul %b, %[[S]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %shift_folded = tg.add %[[BS]], %[[SHIFT]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %y = tg.conv2d %x, %w_bn, %shift_folded {strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
// CHECK-NEXT:    func.return %y : tensor<1x3x2x2xf32>
func.func @conv_with_bias(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x2x2xf32> {
  %w = tg.weight @w : tensor<3x2x3x3xf32>
  %b = tg.weight @b : tensor<3xf32>
  %scale = tg.weight @scale : tensor<3xf32>
  %shift = tg.weight @shift : tensor<3xf32>
  %mean = tg.weight @mean : tensor<3xf32>
  %var = tg.weight @var : tensor<3xf32>
  %c = tg.conv2d %x, %w, %b {strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  %y = tg.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 1.0e-03 : f32} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  func.return %y : tensor<1x3x2x2xf32>
}

// -----

// conv2d without a bias (and grouped: the weight's first dim is still the output
// channel): the folded bias is the shift itself. Inline tg.constant parameters count as
// constants too.

// CHECK-LABEL: func.func @conv_without_bias
// CHECK-NEXT:    %w = tg.weight @w : tensor<4x1x3x3xf32>
// CHECK-NEXT:    %p = tg.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[EPS:[a-z0-9_]+]] = tg.constant dense<1.000000e-05> : tensor<f32>
// CHECK-NEXT:    %[[VE:[a-z0-9_]+]] = tg.add %p, %[[EPS]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SQ:[a-z0-9_]+]] = tg.sqrt %[[VE]] : tensor<4xf32>
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = tg.div %p, %[[SQ]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[MS:[a-z0-9_]+]] = tg.mul %p, %[[S]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %p_folded = tg.sub %p, %[[MS]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[S4:[a-z0-9_]+]] = tg.reshape %[[S]] : tensor<4xf32> -> tensor<4x1x1x1xf32>
// CHECK-NEXT:    %w_bn = tg.mul %w, %[[S4]] : (tensor<4x1x3x3xf32>, tensor<4x1x1x1xf32>) -> tensor<4x1x3x3xf32>
// CHECK-NEXT:    %y = tg.conv2d %x, %w_bn, %p_folded {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x3x3xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:    func.return %y : tensor<1x4x3x3xf32>
func.func @conv_without_bias(%x: tensor<1x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %w = tg.weight @w : tensor<4x1x3x3xf32>
  %p = tg.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x3x3xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
  %y = tg.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return %y : tensor<1x4x3x3xf32>
}

// -----

// gemm with trans_b = true: B is (N, K), so s scales its rows (shape N x 1). C becomes
// C * s + shift / beta, beta stays.

// CHECK-LABEL: func.func @gemm_trans_b_with_c
// CHECK-NEXT:    %b = tg.weight @b : tensor<4x3xf32>
// CHECK-NEXT:    %c = tg.weight @c : tensor<4xf32>
// CHECK-NEXT:    %p = tg.weight @p : tensor<4xf32>
// CHECK-NEXT:    %[[EPS:[a-z0-9_]+]] = tg.constant dense<1.000000e-05> : tensor<f32>
// CHECK-NEXT:    %[[VE:[a-z0-9_]+]] = tg.add %p, %[[EPS]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SQ:[a-z0-9_]+]] = tg.sqrt %[[VE]] : tensor<4xf32>
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = tg.div %p, %[[SQ]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[MS:[a-z0-9_]+]] = tg.mul %p, %[[S]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SHIFT:[a-z0-9_]+]] = tg.sub %p, %[[MS]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[S2:[a-z0-9_]+]] = tg.reshape %[[S]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %b_bn = tg.mul %b, %[[S2]] : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[CS:[a-z0-9_]+]] = tg.mul %c, %[[S]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[BETA:[a-z0-9_]+]] = tg.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[SB:[a-z0-9_]+]] = tg.div %[[SHIFT]], %[[BETA]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %p_folded = tg.add %[[CS]], %[[SB]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %y = tg.gemm %a, %b_bn, %p_folded {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = false, trans_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %y : tensor<2x4xf32>
func.func @gemm_trans_b_with_c(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %b = tg.weight @b : tensor<4x3xf32>
  %c = tg.weight @c : tensor<4xf32>
  %p = tg.weight @p : tensor<4xf32>
  %g = tg.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = false, trans_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %y = tg.batch_norm %g, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// gemm with trans_b = false and no C: B is (K, N), so s scales its columns (shape 1 x N);
// the shift becomes C, with beta = 1.

// CHECK-LABEL: func.func @gemm_no_trans_b_without_c
// CHECK-NEXT:    %b = tg.weight @b : tensor<3x4xf32>
// CHECK-NEXT:    %p = tg.weight @p : tensor<4xf32>
// CHECK-NEXT:    %[[EPS:[a-z0-9_]+]] = tg.constant dense<1.000000e-05> : tensor<f32>
// CHECK-NEXT:    %[[VE:[a-z0-9_]+]] = tg.add %p, %[[EPS]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SQ:[a-z0-9_]+]] = tg.sqrt %[[VE]] : tensor<4xf32>
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = tg.div %p, %[[SQ]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[MS:[a-z0-9_]+]] = tg.mul %p, %[[S]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %p_folded = tg.sub %p, %[[MS]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[S2:[a-z0-9_]+]] = tg.reshape %[[S]] : tensor<4xf32> -> tensor<1x4xf32>
// CHECK-NEXT:    %b_bn = tg.mul %b, %[[S2]] : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %y = tg.gemm %a, %b_bn, %p_folded {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %y : tensor<2x4xf32>
func.func @gemm_no_trans_b_without_c(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %b = tg.weight @b : tensor<3x4xf32>
  %p = tg.weight @p : tensor<4xf32>
  %g = tg.gemm %a, %b {alpha = 1.0 : f32, beta = 0.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %y = tg.batch_norm %g, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// A C that beta = 0 ignores is dropped (it is no longer used and disappears); the shift
// takes its place with beta = 1.

// CHECK-LABEL: func.func @gemm_beta_zero
// CHECK-NEXT:    %b = tg.weight @b : tensor<3x4xf32>
// CHECK-NEXT:    %p = tg.weight @p : tensor<4xf32>
// CHECK-NOT:     %c
// CHECK:         %y = tg.gemm %a, %b_bn, %p_folded {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %y : tensor<2x4xf32>
func.func @gemm_beta_zero(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %b = tg.weight @b : tensor<3x4xf32>
  %c = tg.weight @c : tensor<4xf32>
  %p = tg.weight @p : tensor<4xf32>
  %g = tg.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 0.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %y = tg.batch_norm %g, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// Batch-norm parameters known only at run time (function arguments): unchanged.

// CHECK-LABEL: func.func @params_not_constant
// CHECK-NEXT:    %w = tg.weight @w : tensor<3x2x3x3xf32>
// CHECK-NEXT:    %p = tg.weight @p : tensor<3xf32>
// CHECK-NEXT:    %c = tg.conv2d %x, %w {{.*}} -> tensor<1x3x2x2xf32>
// CHECK-NEXT:    %y = tg.batch_norm %c, %scale, %p, %p, %p {epsilon = 1.000000e-05 : f32} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
// CHECK-NEXT:    func.return %y : tensor<1x3x2x2xf32>
func.func @params_not_constant(%x: tensor<1x2x4x4xf32>, %scale: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  %w = tg.weight @w : tensor<3x2x3x3xf32>
  %p = tg.weight @p : tensor<3xf32>
  %c = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32>
  %y = tg.batch_norm %c, %scale, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  func.return %y : tensor<1x3x2x2xf32>
}

// -----

// A conv weight known only at run time: unchanged as well.

// CHECK-LABEL: func.func @conv_weight_not_constant
// CHECK-NEXT:    %p = tg.weight @p : tensor<3xf32>
// CHECK-NEXT:    %c = tg.conv2d %x, %w {{.*}} -> tensor<1x3x2x2xf32>
// CHECK-NEXT:    %y = tg.batch_norm %c, %p, %p, %p, %p {{.*}}
// CHECK-NEXT:    func.return %y : tensor<1x3x2x2xf32>
func.func @conv_weight_not_constant(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32> {
  %p = tg.weight @p : tensor<3xf32>
  %c = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32>
  %y = tg.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  func.return %y : tensor<1x3x2x2xf32>
}

// -----

// The conv result is also returned, so the conv must stay as it is: unchanged.

// CHECK-LABEL: func.func @conv_used_twice
// CHECK-NEXT:    %w = tg.weight @w : tensor<3x2x3x3xf32>
// CHECK-NEXT:    %p = tg.weight @p : tensor<3xf32>
// CHECK-NEXT:    %c = tg.conv2d %x, %w {{.*}} -> tensor<1x3x2x2xf32>
// CHECK-NEXT:    %y = tg.batch_norm %c, %p, %p, %p, %p {{.*}}
// CHECK-NEXT:    func.return %y, %c : tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>
func.func @conv_used_twice(%x: tensor<1x2x4x4xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>) {
  %w = tg.weight @w : tensor<3x2x3x3xf32>
  %p = tg.weight @p : tensor<3xf32>
  %c = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32>
  %y = tg.batch_norm %c, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  func.return %y, %c : tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>
}

// -----

// A batch_norm on anything but conv2d or gemm (here a matmul) is left alone.

// CHECK-LABEL: func.func @not_after_conv_or_gemm
// CHECK-NEXT:    %b = tg.weight @b : tensor<3x4xf32>
// CHECK-NEXT:    %p = tg.weight @p : tensor<4xf32>
// CHECK-NEXT:    %m = tg.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %y = tg.batch_norm %m, %p, %p, %p, %p {{.*}}
// CHECK-NEXT:    func.return %y : tensor<2x4xf32>
func.func @not_after_conv_or_gemm(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %b = tg.weight @b : tensor<3x4xf32>
  %p = tg.weight @p : tensor<4xf32>
  %m = tg.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %y = tg.batch_norm %m, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// conv_transpose2d, weights (C, M/groups, kH, kW) with 2 groups: output channel
// g*M/groups + j scales w[g*C/groups + i, j], so the weight is viewed per group and the
// scale broadcast along its second axis.
// CHECK-LABEL: func.func @conv_transpose_grouped
// CHECK:         %[[S5:[a-z0-9_]+]] = tg.reshape %[[S:[a-z0-9_]+]] : tensor<4xf32> -> tensor<2x1x2x1x1xf32>
// CHECK-NEXT:    %[[WG:[a-z0-9_]+]] = tg.reshape %w : tensor<6x2x3x3xf32> -> tensor<2x3x2x3x3xf32>
// CHECK-NEXT:    %[[M:[a-z0-9_]+]] = tg.mul %[[WG]], %[[S5]] : (tensor<2x3x2x3x3xf32>, tensor<2x1x2x1x1xf32>) -> tensor<2x3x2x3x3xf32>
// CHECK-NEXT:    %w_bn = tg.reshape %[[M]] : tensor<2x3x2x3x3xf32> -> tensor<6x2x3x3xf32>
// CHECK:         %y = tg.conv_transpose2d %x, %w_bn, %shift_folded {{{.*}}groups = 2 : i64{{.*}}} : (tensor<1x6x2x2xf32>, tensor<6x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
// CHECK-NOT:     tg.batch_norm
func.func @conv_transpose_grouped(%x: tensor<1x6x2x2xf32>) -> tensor<1x4x5x5xf32> {
  %w = tg.weight @w : tensor<6x2x3x3xf32>
  %scale = tg.weight @scale : tensor<4xf32>
  %shift = tg.weight @shift : tensor<4xf32>
  %mean = tg.weight @mean : tensor<4xf32>
  %var = tg.weight @var : tensor<4xf32>
  %c = tg.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x6x2x2xf32>, tensor<6x2x3x3xf32>) -> tensor<1x4x5x5xf32>
  %y = tg.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 1.0e-03 : f32} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  func.return %y : tensor<1x4x5x5xf32>
}
