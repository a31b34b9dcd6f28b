// RUN: %tessel-opt %s -p tg-fuse --split-input-file | filecheck %s

// tg-fuse groups tg ops into tg.fused regions by TVM's fusion categories. Groups grow
// from their sink towards producers; a producer joins when all its uses are in the group
// and the group keeps one of three shapes: injective only; one reduction with injective
// producers and element-wise consumers; one complex-out-fusable op with element-wise
// consumers. Every other computation gets a tg.fused of its own.

// An injective chain, broadcasting and data movement included, is one group named
// after its ops; the group's inputs become block arguments.

// CHECK-LABEL: func.func @injective_chain
// CHECK-NEXT:    %d = tg.fused "add_relu_transpose_exp"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:    ^bb0(%[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9_]+]]: tensor<3xf32>):
// CHECK-NEXT:      %[[A:[a-z0-9_]+]] = tg.add %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      %[[B:[a-z0-9_]+]] = tg.relu %[[A]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[C:[a-z0-9_]+]] = tg.transpose %[[B]] {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:      %[[D:[a-z0-9_]+]] = tg.exp %[[C]] : tensor<3x2xf32>
// CHECK-NEXT:      tg.yield %[[D]] : tensor<3x2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %d : tensor<3x2xf32>
func.func @injective_chain(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<3x2xf32> {
  %a = tg.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %b = tg.relu %a : tensor<2x3xf32>
  %c = tg.transpose %b {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %d = tg.exp %c : tensor<3x2xf32>
  func.return %d : tensor<3x2xf32>
}

// -----

// An injective diamond fuses whole: %r has two uses, but both are inside the group
// by the time the group reaches it (groups grow from the sink).

// CHECK-LABEL: func.func @injective_diamond
// CHECK-NEXT:    %s = tg.fused "relu_exp_neg_add"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    ^bb0(%[[X:[a-z0-9_]+]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = tg.relu %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = tg.exp %[[R]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[N:[a-z0-9_]+]] = tg.neg %[[R]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = tg.add %[[E]], %[[N]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      tg.yield %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : tensor<2x3xf32>
func.func @injective_diamond(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tg.relu %x : tensor<2x3xf32>
  %e = tg.exp %r : tensor<2x3xf32>
  %n = tg.neg %r : tensor<2x3xf32>
  %s = tg.add %e, %n : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %s : tensor<2x3xf32>
}

// -----

// A value with a consumer outside the group cuts it: %r feeds two groups (exp-neg and
// tanh), so it is computed once, by a group of its own.

// CHECK-LABEL: func.func @consumer_outside_the_group
// CHECK-NEXT:    %r = tg.fused "relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    ^bb0(%[[X:[a-z0-9_]+]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = tg.relu %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:      tg.yield %[[R]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %n = tg.fused "exp_neg"(%r) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    ^bb0(%[[R1:[a-z0-9_]+]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = tg.exp %[[R1]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[N:[a-z0-9_]+]] = tg.neg %[[E]] : tensor<2x3xf32>
// CHECK-NEXT:      tg.yield %[[N]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %t = tg.fused "tanh"(%r) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    ^bb0(%[[R2:[a-z0-9_]+]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[T:[a-z0-9_]+]] = tg.tanh %[[R2]] : tensor<2x3xf32>
// CHECK-NEXT:      tg.yield %[[T]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %n, %t : tensor<2x3xf32>, tensor<2x3xf32>
func.func @consumer_outside_the_group(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %r = tg.relu %x : tensor<2x3xf32>
  %e = tg.exp %r : tensor<2x3xf32>
  %n = tg.neg %e : tensor<2x3xf32>
  %t = tg.tanh %r : tensor<2x3xf32>
  func.return %n, %t : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A complex-out-fusable op (conv2d) absorbs its element-wise consumers: the bias add
// (broadcast) and the relu.

// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-NEXT:    %r = tg.fused "conv2d_add_relu"(%x, %w, %b) : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4x1x1xf32>) -> tensor<1x4x3x3xf32> {
// CHECK-NEXT:    ^bb0(%[[X:[a-z0-9_]+]]: tensor<1x2x5x5xf32>, %[[W:[a-z0-9_]+]]: tensor<4x2x3x3xf32>, %[[B:[a-z0-9_]+]]: tensor<4x1x1xf32>):
// CHECK-NEXT:      %[[C:[a-z0-9_]+]] = tg.conv2d %[[X]], %[[W]] {{.*}} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:      %[[A:[a-z0-9_]+]] = tg.add %[[C]], %[[B]] : (tensor<1x4x3x3xf32>, tensor<4x1x1xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = tg.relu %[[A]] : tensor<1x4x3x3xf32>
// CHECK-NEXT:      tg.yield %[[R]] : tensor<1x4x3x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<1x4x3x3xf32>
func.func @conv_bias_relu(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x3x3xf32> {
  %c = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %a = tg.add %c, %b : (tensor<1x4x3x3xf32>, tensor<4x1x1xf32>) -> tensor<1x4x3x3xf32>
  %r = tg.relu %a : tensor<1x4x3x3xf32>
  func.return %r : tensor<1x4x3x3xf32>
}

// -----

// transpose is injective but not element-wise (it moves data), so the conv does not
// absorb it; the transpose and the relu after it form an injective group.

// CHECK-LABEL: func.func @conv_then_transpose
// CHECK-NEXT:    %c = tg.fused "conv2d"(%x, %w) : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
// CHECK-NEXT:    ^bb0(%[[X:[a-z0-9_]+]]: tensor<1x2x5x5xf32>, %[[W:[a-z0-9_]+]]: tensor<4x2x3x3xf32>):
// CHECK-NEXT:      %[[C:[a-z0-9_]+]] = tg.conv2d %[[X]], %[[W]] {{.*}} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:      tg.yield %[[C]] : tensor<1x4x3x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = tg.fused "transpose_relu"(%c) : (tensor<1x4x3x3xf32>) -> tensor<1x3x3x4xf32> {
// CHECK-NEXT:    ^bb0(%[[C1:[a-z0-9_]+]]: tensor<1x4x3x3xf32>):
// CHECK-NEXT:      %[[T:[a-z0-9_]+]] = tg.transpose %[[C1]] {perm = array<i64: 0, 2, 3, 1>} : tensor<1x4x3x3xf32> -> tensor<1x3x3x4xf32>
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = tg.relu %[[T]] : tensor<1x3x3x4xf32>
// CHECK-NEXT:      tg.yield %[[R]] : tensor<1x3x3x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<1x3x3x4xf32>
func.func @conv_then_transpose(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x3x3x4xf32> {
  %c = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %t = tg.transpose %c {perm = array<i64: 0, 2, 3, 1>} : tensor<1x4x3x3xf32> -> tensor<1x3x3x4xf32>
  %r = tg.relu %t : tensor<1x3x3x4xf32>
  func.return %r : tensor<1x3x3x4xf32>
}

// -----

// A reduction takes its injective producers as a prologue (transpose included) and its
// element-wise consumers as an epilogue: mul, transpose, reduce_sum and sqrt are one kernel.

// CHECK-LABEL: func.func @reduction_prologue_epilogue
// CHECK-NEXT:    %q = tg.fused "mul_transpose_reduce_sum_sqrt"(%x, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    ^bb0(%[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[M:[a-z0-9_]+]] = tg.mul %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      %[[T:[a-z0-9_]+]] = tg.transpose %[[M]] {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = tg.reduce_sum %[[T]] {axes = array<i64: 0>, keepdims = false} : tensor<3x2xf32> -> tensor<2xf32>
// CHECK-NEXT:      %[[Q:[a-z0-9_]+]] = tg.sqrt %[[S]] : tensor<2xf32>
// CHECK-NEXT:      tg.yield %[[Q]] : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %q : tensor<2xf32>
func.func @reduction_prologue_epilogue(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2xf32> {
  %m = tg.mul %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = tg.transpose %m {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = tg.reduce_sum %t {axes = array<i64: 0>, keepdims = false} : tensor<3x2xf32> -> tensor<2xf32>
  %q = tg.sqrt %s : tensor<2xf32>
  func.return %q : tensor<2xf32>
}

// -----

// The epilogue of a reduction is element-wise only: a reshape after it starts an
// injective group, which then cannot take the reduction in.

// CHECK-LABEL: func.func @reduction_then_reshape
// CHECK-NEXT:    %s = tg.fused "reduce_mean"(%x) : (tensor<2x3xf32>) -> tensor<2xf32> {
// CHECK:         %r = tg.fused "neg_reshape"(%s) : (tensor<2xf32>) -> tensor<2x1xf32> {
// CHECK:         func.return %r : tensor<2x1xf32>
func.func @reduction_then_reshape(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %s = tg.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  %n = tg.neg %s : tensor<2xf32>
  %r = tg.reshape %n : tensor<2xf32> -> tensor<2x1xf32>
  func.return %r : tensor<2x1xf32>
}

// -----

// Two anchors (complex-out-fusable or reduction) are never in one group. The relu
// between two matmuls is an element-wise consumer of the first, and the second matmul
// cannot take it as a producer.

// CHECK-LABEL: func.func @two_matmuls
// CHECK-NEXT:    %r = tg.fused "matmul_relu"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<2x3xf32>, %[[B:[a-z0-9_]+]]: tensor<3x4xf32>):
// CHECK-NEXT:      %[[M:[a-z0-9_]+]] = tg.matmul %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = tg.relu %[[M]] : tensor<2x4xf32>
// CHECK-NEXT:      tg.yield %[[R]] : tensor<2x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %n = tg.fused "matmul"(%r, %c) : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32> {
// CHECK-NEXT:    ^bb0(%[[R1:[a-z0-9_]+]]: tensor<2x4xf32>, %[[C:[a-z0-9_]+]]: tensor<4x5xf32>):
// CHECK-NEXT:      %[[N:[a-z0-9_]+]] = tg.matmul %[[R1]], %[[C]] : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:      tg.yield %[[N]] : tensor<2x5xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %n : tensor<2x5xf32>
func.func @two_matmuls(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %m = tg.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %r = tg.relu %m : tensor<2x4xf32>
  %n = tg.matmul %r, %c : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return %n : tensor<2x5xf32>
}

// -----

// Two reductions: the relu between them could end the first or start the second; groups
// grow from the last sink first, so it becomes the second one's prologue.

// CHECK-LABEL: func.func @two_reductions
// CHECK-NEXT:    %s = tg.fused "reduce_mean"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3xf32> {
// CHECK:         %m = tg.fused "relu_reduce_max"(%s) : (tensor<2x3xf32>) -> tensor<2xf32> {
// CHECK:         func.return %m : tensor<2xf32>
func.func @two_reductions(%x: tensor<2x3x4xf32>) -> tensor<2xf32> {
  %s = tg.reduce_mean %x {axes = array<i64: 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<2x3xf32>
  %r = tg.relu %s : tensor<2x3xf32>
  %m = tg.reduce_max %r {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  func.return %m : tensor<2xf32>
}

// -----

// Two convolutions meet in the residual add of a ResNet block with a downsampling
// shortcut (batch norms already folded into the conv biases): only the first operand's
// conv takes the add and relu; the shortcut conv is a group of its own.

// CHECK-LABEL: func.func @two_convs_one_add
// CHECK-NEXT:    %w1 = tg.weight @w1 : tensor<4x2x3x3xf32>
// CHECK-NEXT:    %w2 = tg.weight @w2 : tensor<4x2x1x1xf32>
// CHECK-NEXT:    %b = tg.weight @b : tensor<4xf32>
// CHECK-NEXT:    %s = tg.fused "conv2d"(%x, %w2, %b) : (tensor<1x2x6x6xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32> {
// CHECK:         %r = tg.fused "conv2d_add_relu"(%x, %w1, %b, %s) : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
// CHECK:         func.return %r : tensor<1x4x3x3xf32>
func.func @two_convs_one_add(%x: tensor<1x2x6x6xf32>) -> tensor<1x4x3x3xf32> {
  %w1 = tg.weight @w1 : tensor<4x2x3x3xf32>
  %w2 = tg.weight @w2 : tensor<4x2x1x1xf32>
  %b = tg.weight @b : tensor<4xf32>
  %y = tg.conv2d %x, %w1, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %s = tg.conv2d %x, %w2, %b {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %a = tg.add %y, %s : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %r = tg.relu %a : tensor<1x4x3x3xf32>
  func.return %r : tensor<1x4x3x3xf32>
}

// -----

// An opaque op (softmax) is never fused: it cuts the chain into three groups.

// CHECK-LABEL: func.func @opaque_softmax
// CHECK-NEXT:    %e = tg.fused "exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK:         %s = tg.fused "softmax"(%e) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    ^bb0(%[[E:[a-z0-9_]+]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = tg.softmax %[[E]] {axis = 1 : i64} : tensor<2x3xf32>
// CHECK-NEXT:      tg.yield %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %n = tg.fused "neg"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK:         func.return %n : tensor<2x3xf32>
func.func @opaque_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tg.exp %x : tensor<2x3xf32>
  %s = tg.softmax %e {axis = 1 : i64} : tensor<2x3xf32>
  %n = tg.neg %s : tensor<2x3xf32>
  func.return %n : tensor<2x3xf32>
}

// -----

// Weights and constants hold data; they stay outside every group and enter it as inputs.

// CHECK-LABEL: func.func @weights_and_constants
// CHECK-NEXT:    %w = tg.weight @w : tensor<2x3xf32>
// CHECK-NEXT:    %c = tg.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %m = tg.fused "add_mul"(%x, %w, %c) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    ^bb0(%[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[W:[a-z0-9_]+]]: tensor<2x3xf32>, %[[C:[a-z0-9_]+]]: tensor<3xf32>):
// CHECK-NEXT:      %[[A:[a-z0-9_]+]] = tg.add %[[X]], %[[W]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      %[[M:[a-z0-9_]+]] = tg.mul %[[A]], %[[C]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      tg.yield %[[M]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %m : tensor<2x3xf32>
func.func @weights_and_constants(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = tg.weight @w : tensor<2x3xf32>
  %c = tg.constant dense<2.0> : tensor<3xf32>
  %a = tg.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = tg.mul %a, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %m : tensor<2x3xf32>
}

// -----

// max_pool2d with indices has two results: it is a group of its own that yields both,
// taking neither its producer nor its consumers.

// CHECK-LABEL: func.func @max_pool_with_indices
// CHECK-NEXT:    %r = tg.fused "relu"(%x) : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
// CHECK:         %v, %i = tg.fused "max_pool2d"(%r) : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
// CHECK-NEXT:    ^bb0(%[[R:[a-z0-9_]+]]: tensor<1x1x4x4xf32>):
// CHECK-NEXT:      %[[V:[a-z0-9_]+]], %[[I:[a-z0-9_]+]] = tg.max_pool2d %[[R]] {{.*}} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK-NEXT:      tg.yield %[[V]], %[[I]] : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
// CHECK-NEXT:    }
// CHECK-NEXT:    %n = tg.fused "neg"(%v) : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
// CHECK:         func.return %n, %i : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
func.func @max_pool_with_indices(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  %r = tg.relu %x : tensor<1x1x4x4xf32>
  %v, %i = tg.max_pool2d %r {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  %n = tg.neg %v : tensor<1x1x2x2xf32>
  func.return %n, %i : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}

// -----

// Without indices, max_pool2d is an ordinary complex-out-fusable op with an epilogue.

// CHECK-LABEL: func.func @max_pool_values_only
// CHECK-NEXT:    %n = tg.fused "max_pool2d_neg"(%x) : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
// CHECK-NEXT:    ^bb0(%[[X:[a-z0-9_]+]]: tensor<1x1x4x4xf32>):
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = tg.max_pool2d %[[X]] {{.*}} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
// CHECK-NEXT:      %[[N:[a-z0-9_]+]] = tg.neg %[[V]] : tensor<1x1x2x2xf32>
// CHECK-NEXT:      tg.yield %[[N]] : tensor<1x1x2x2xf32>
// CHECK-NEXT:    }
func.func @max_pool_values_only(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %v = tg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %n = tg.neg %v : tensor<1x1x2x2xf32>
  func.return %n : tensor<1x1x2x2xf32>
}

// -----

// The ResNet basic block: conv + batch_norm + relu, then conv + batch_norm + residual
// add + relu. batch_norm is element-wise, so each conv takes its whole epilogue: two
// kernels. The block input %x is read by both groups.

// CHECK-LABEL: func.func @resnet_basic_block
// CHECK-NEXT:    %w1 = tg.weight @w1 : tensor<4x4x3x3xf32>
// CHECK-NEXT:    %w2 = tg.weight @w2 : tensor<4x4x3x3xf32>
// CHECK-NEXT:    %p = tg.weight @bn : tensor<4xf32>
// CHECK-NEXT:    %r1 = tg.fused "conv2d_batch_norm_relu"(%x, %w1, %p) : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32> {
// CHECK-NEXT:    ^bb0(%[[X:[a-z0-9_]+]]: tensor<1x4x4x4xf32>, %[[W1:[a-z0-9_]+]]: tensor<4x4x3x3xf32>, %[[P:[a-z0-9_]+]]: tensor<4xf32>):
// CHECK-NEXT:      %[[C1:[a-z0-9_]+]] = tg.conv2d %[[X]], %[[W1]] {{.*}}
// CHECK-NEXT:      %[[B1:[a-z0-9_]+]] = tg.batch_norm %[[C1]], %[[P]], %[[P]], %[[P]], %[[P]] {{.*}}
// CHECK-NEXT:      %[[R1:[a-z0-9_]+]] = tg.relu %[[B1]] : tensor<1x4x4x4xf32>
// CHECK-NEXT:      tg.yield %[[R1]] : tensor<1x4x4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %r2 = tg.fused "conv2d_batch_norm_add_relu"(%r1, %w2, %p, %x) : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
// CHECK-NEXT:    ^bb0(%[[Y:[a-z0-9_]+]]: tensor<1x4x4x4xf32>, %[[W2:[a-z0-9_]+]]: tensor<4x4x3x3xf32>, %[[Q:[a-z0-9_]+]]: tensor<4xf32>, %[[SKIP:[a-z0-9_]+]]: tensor<1x4x4x4xf32>):
// CHECK-NEXT:      %[[C2:[a-z0-9_]+]] = tg.conv2d %[[Y]], %[[W2]] {{.*}}
// CHECK-NEXT:      %[[B2:[a-z0-9_]+]] = tg.batch_norm %[[C2]], %[[Q]], %[[Q]], %[[Q]], %[[Q]] {{.*}}
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = tg.add %[[B2]], %[[SKIP]] : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:      %[[R2:[a-z0-9_]+]] = tg.relu %[[S]] : tensor<1x4x4x4xf32>
// CHECK-NEXT:      tg.yield %[[R2]] : tensor<1x4x4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r2 : tensor<1x4x4x4xf32>
func.func @resnet_basic_block(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w1 = tg.weight @w1 : tensor<4x4x3x3xf32>
  %w2 = tg.weight @w2 : tensor<4x4x3x3xf32>
  %p = tg.weight @bn : tensor<4xf32>
  %c1 = tg.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %b1 = tg.batch_norm %c1, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r1 = tg.relu %b1 : tensor<1x4x4x4xf32>
  %c2 = tg.conv2d %r1, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %b2 = tg.batch_norm %c2, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %s = tg.add %b2, %x : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r2 = tg.relu %s : tensor<1x4x4x4xf32>
  func.return %r2 : tensor<1x4x4x4xf32>
}

// -----

// Rule: an element-wise op fed by an anchor is the anchor's epilogue even when an
// injective op that the anchor cannot join (a layout transform) consumes it: the relu
// and the add go with the conv, the transform is a group of its own.
// CHECK-LABEL: func.func @epilogue_before_transform
// CHECK:      tg.fused "conv2d_nchwc_add_relu"
// CHECK:      tg.fused "layout_transform"
// CHECK-NOT:  tg.fused
func.func @epilogue_before_transform(%x: tensor<1x1x4x4x16xf32>, %w: tensor<1x1x1x1x16x16xf32>, %r: tensor<1x1x4x4x16xf32>) -> tensor<1x16x4x4xf32> {
  %c = tg.conv2d_nchwc %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4x16xf32>, tensor<1x1x1x1x16x16xf32>) -> tensor<1x1x4x4x16xf32>
  %a = tg.add %c, %r : (tensor<1x1x4x4x16xf32>, tensor<1x1x4x4x16xf32>) -> tensor<1x1x4x4x16xf32>
  %y = tg.relu %a : tensor<1x1x4x4x16xf32>
  %t = tg.layout_transform %y {src = "NCHW16c", dst = "NCHW"} : tensor<1x1x4x4x16xf32> -> tensor<1x16x4x4xf32>
  func.return %t : tensor<1x16x4x4xf32>
}
