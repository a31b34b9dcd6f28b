// RUN: %tessel-opt %s -p tg-fold-constants --split-input-file | filecheck %s

// Folding tg.weight leaves: the weights file and an IR file naming it (the `// IR: `
// lines at the end of this file) are written into %t; the folded array that is too
// large to be inline goes to a new weights file beside -o.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/w.npz', w=np.arange(20, dtype=np.float32).reshape(4, 5) - 8)"
// RUN: %python -c "import sys; open(sys.argv[2], 'w').writelines(l[len('// IR: '):] for l in open(sys.argv[1]) if l.startswith('// IR: '))" %s %t/model.mlir
// RUN: %tessel-opt %t/model.mlir -p tg-fold-constants -o %t/out.mlir
// RUN: filecheck %s --check-prefix=STORE < %t/out.mlir
// RUN: %python -c "import numpy as np; o = np.load('%t/out.weights.npz'); print(sorted(o.files)); print(o['m'].dtype, o['m'].shape, *o['m'].ravel())" | filecheck %s --check-prefix=NPZ

// tg-fold-constants evaluates every op whose operands are all compile-time constants
// with the reference semantics, replaces it by a tg.constant (at most 16 elements) or a
// new tg.weight (larger), and erases what lost its last use.

// A chain on inline constants (broadcasting add, sub of a scalar, relu) becomes one
// constant holding the result; the operand constants are gone.

// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %r = tg.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00, 5.000000e-01, 1.500000e+00], [0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<2x4xf32>
// CHECK-NEXT:    func.return %r : tensor<2x4xf32>
// CHECK-NEXT:  }
func.func @chain() -> tensor<2x4xf32> {
  %a = tg.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = tg.constant dense<[[0.5], [2.0]]> : tensor<2x1xf32>
  %three = tg.constant dense<3.0> : tensor<f32>
  %s = tg.add %a, %b : (tensor<4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %d = tg.sub %s, %three : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %r = tg.relu %d : tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

// Integer semantics are the reference ones: division truncates toward zero; data
// movement (transpose) folds as well.

// CHECK-LABEL: func.func @integers
// CHECK-NEXT:    %t = tg.constant dense<{{\[\[}}-3, 0], [3, 0], [2, 4]]> : tensor<3x2xi64>
// CHECK-NEXT:    func.return %t : tensor<3x2xi64>
// CHECK-NEXT:  }
func.func @integers() -> tensor<3x2xi64> {
  %a = tg.constant dense<[[-7, 7, 5], [-1, 0, 9]]> : tensor<2x3xi64>
  %b = tg.constant dense<2> : tensor<i64>
  %q = tg.div %a, %b : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi64>
  %t = tg.transpose %q {perm = array<i64: 1, 0>} : tensor<2x3xi64> -> tensor<3x2xi64>
  func.return %t : tensor<3x2xi64>
}

// -----

// A cast from float to integer truncates toward zero.

// CHECK-LABEL: func.func @cast
// CHECK-NEXT:    %i = tg.constant dense<[2, -2, 7]> : tensor<3xi32>
// CHECK-NEXT:    func.return %i : tensor<3xi32>
func.func @cast() -> tensor<3xi32> {
  %f = tg.constant dense<[2.5, -2.5, 7.9]> : tensor<3xf32>
  %i = tg.cast %f : tensor<3xf32> -> tensor<3xi32>
  func.return %i : tensor<3xi32>
}

// -----

// An op with a run-time operand is not folded, nor is anything after it; the constant
// part before it is, and the folded value serves both of its users.

// CHECK-LABEL: func.func @runtime_operand
// CHECK-NEXT:    %n = tg.constant dense<[-1.000000e+00, 2.000000e+00, -5.000000e-01]> : tensor<3xf32>
// CHECK-NEXT:    %y = tg.add %x, %n : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %z = tg.mul %y, %n : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %z : tensor<3xf32>
func.func @runtime_operand(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = tg.constant dense<[1.0, -2.0, 0.5]> : tensor<3xf32>
  %n = tg.neg %a : tensor<3xf32>
  %y = tg.add %x, %n : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %z = tg.mul %y, %n : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %z : tensor<3xf32>
}

// -----

// Each result of a multi-result op becomes its own constant: max_pool2d's values and
// the flat indices of the maxima.

// CHECK-LABEL: func.func @two_results
// CHECK-NEXT:    %v = tg.constant dense<{{\[\[\[\[}}5.000000e+00, 8.000000e+00], [9.000000e+00, 2.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-NEXT:    %i = tg.constant dense<{{\[\[\[\[}}1, 6], [12, 15]]]]> : tensor<1x1x2x2xi64>
// CHECK-NEXT:    func.return %v, %i : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
func.func @two_results() -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  %a = tg.constant dense<[[[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 8.0, 1.0], [0.0, 0.0, 1.0, 1.0], [9.0, 0.0, 1.0, 2.0]]]]> : tensor<1x1x4x4xf32>
  %v, %i = tg.max_pool2d %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  func.return %v, %i : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}

// The module below reads @w = arange(20).reshape(4, 5) - 8 from %t/w.npz. Its 20-element
// product with 2 becomes the weight @m of the new weights file out.weights.npz (which the
// module now names); the 4-element row sums become an inline constant; @w is unused and
// disappears; the add of the run-time %x stays.

// STORE:      builtin.module attributes {tg.weights = "out.weights.npz"} {
// STORE-NEXT:   func.func @main(%x: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4xf32>) {
// STORE-NEXT:     %m = tg.weight @m : tensor<4x5xf32>
// STORE-NEXT:     %s = tg.constant dense<[-3.000000e+01, -5.000000e+00, 2.000000e+01, 4.500000e+01]> : tensor<4xf32>
// STORE-NEXT:     %y = tg.add %x, %m : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
// STORE-NEXT:     func.return %y, %s : tensor<4x5xf32>, tensor<4xf32>
// STORE-NEXT:   }
// STORE-NEXT: }

// NPZ:      ['m']
// NPZ-NEXT: float32 (4, 5) -16.0 -14.0 -12.0 -10.0 -8.0 -6.0 -4.0 -2.0 0.0 2.0 4.0 6.0 8.0 10.0 12.0 14.0 16.0 18.0 20.0 22.0{{$}}

// -----

// A value an operand-less op generates (tg.fill: ONNX's ConstantOfShape) folds into a
// consumer whose inputs are all known (a mask built by scatter_nd, as swin's attention
// mask is), so no kernel computes it on every run; consumed by an op with a run-time
// input, or by a large result, the fill stays (it is free to compute in a kernel).
// CHECK-LABEL: func.func @generated
// CHECK-NEXT:    %m = tg.constant dense<{{\[\[}}0.000000e+00, 5.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT:    %z = tg.fill {value = 0.000000e+00 : f32} : tensor<2x3xf32>
// CHECK-NEXT:    %a = tg.add %x, %z
// CHECK-NEXT:    %big = tg.fill {value = 1.000000e+00 : f32} : tensor<512x512xf32>
// CHECK-NEXT:    %b = tg.add %big, %big
// CHECK-NEXT:    func.return %m, %a, %b
func.func @generated(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<512x512xf32>) {
  %f = tg.fill {value = 0.0 : f32} : tensor<2x3xf32>
  %i = tg.constant dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>
  %u = tg.constant dense<[5.0, 5.0]> : tensor<2xf32>
  %m = tg.scatter_nd %f, %i, %u {reduction = "none"} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<2x3xf32>
  %z = tg.fill {value = 0.0 : f32} : tensor<2x3xf32>
  %a = tg.add %x, %z : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %big = tg.fill {value = 1.0 : f32} : tensor<512x512xf32>
  %b = tg.add %big, %big : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  func.return %m, %a, %b : tensor<2x3xf32>, tensor<2x3xf32>, tensor<512x512xf32>
}

// IR: builtin.module attributes {tg.weights = "w.npz"} {
// IR:   func.func @main(%x: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4xf32>) {
// IR:     %w = tg.weight @w : tensor<4x5xf32>
// IR:     %two = tg.constant dense<2.0> : tensor<f32>
// IR:     %m = tg.mul %w, %two : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
// IR:     %s = tg.reduce_sum %w {axes = array<i64: 1>, keepdims = false} : tensor<4x5xf32> -> tensor<4xf32>
// IR:     %y = tg.add %x, %m : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
// IR:     func.return %y, %s : tensor<4x5xf32>, tensor<4xf32>
// IR:   }
// IR: }
