// The same op of the same weights folds once: an unrolled recurrence transposes (and
// tg-layout packs) its recurrent matrix once per time step, and each copy was a weight of
// its own (64 steps of a 1 MB matrix made 64 MB, every step reading its own copy from
// memory). Here two transposes of @w become one folded weight that both uses read, a
// third with another permutation of the same weight is another, and only two arrays are
// stored, C-ordered (a transposed view would be copied by every reader).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/w.npz', w=np.arange(24, dtype=np.float32).reshape(2, 3, 4))"
// RUN: %python -c "import sys; open(sys.argv[2], 'w').writelines(l[len('// IR: '):] for l in open(sys.argv[1]) if l.startswith('// IR: '))" %s %t/model.mlir
// RUN: %tessel-opt %t/model.mlir -p tg-fold-constants -o %t/out.mlir
// RUN: filecheck %s < %t/out.mlir
// RUN: %python -c "import numpy as np; o = np.load('%t/out.weights.npz'); print(sorted(o.files)); print(*o['t1'].ravel())" | filecheck %s --check-prefix=NPZ

// CHECK:      %t1 = tg.weight @t1 : tensor<4x3x2xf32>
// CHECK-NEXT: %t2 = tg.weight @t1 : tensor<4x3x2xf32>
// CHECK-NEXT: %t3 = tg.weight @t3 : tensor<3x2x4xf32>
// CHECK-NEXT: %a = tg.add %x, %t1
// CHECK-NEXT: %b = tg.add %a, %t2
// A rank-0 result stays rank 0 (C order must not make it [1]: the next fold then failed):
// CHECK-NEXT: %h = tg.constant dense<1.380000e+02> : tensor<f32>

// NPZ:      ['t1', 't3']
// NPZ-NEXT: 0.0 12.0 4.0 16.0 8.0 20.0 1.0 13.0 5.0 17.0 9.0 21.0 2.0 14.0 6.0 18.0 10.0 22.0 3.0 15.0 7.0 19.0 11.0 23.0{{$}}

// IR: builtin.module attributes {tg.weights = "w.npz"} {
// IR:   func.func @main(%x: tensor<4x3x2xf32>) -> (tensor<4x3x2xf32>, tensor<3x2x4xf32>, tensor<f32>) {
// IR:     %w = tg.weight @w : tensor<2x3x4xf32>
// IR:     %t1 = tg.transpose %w {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// IR:     %t2 = tg.transpose %w {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// IR:     %t3 = tg.transpose %w {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
// IR:     %a = tg.add %x, %t1 : (tensor<4x3x2xf32>, tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
// IR:     %b = tg.add %a, %t2 : (tensor<4x3x2xf32>, tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
// IR:     %n = tg.reduce_sum %w {axes = array<i64: 0, 1, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<f32>
// IR:     %two = tg.constant dense<2.0> : tensor<f32>
// IR:     %h = tg.div %n, %two : (tensor<f32>, tensor<f32>) -> tensor<f32>
// IR:     func.return %b, %t3, %h : tensor<4x3x2xf32>, tensor<3x2x4xf32>, tensor<f32>
// IR:   }
// IR: }
