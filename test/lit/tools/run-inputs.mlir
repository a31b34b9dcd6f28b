// tessel-run --inputs: arrays by input name from an .npz; -o writes the outputs by name.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/in.npz', x=(np.arange(6, dtype=np.float32) - 3).reshape(2, 3))"
// RUN: %tessel-run %s --inputs %t/in.npz -o %t/out.npz | filecheck %s
// RUN: %python -c "import numpy as np; o = np.load('%t/out.npz'); print(sorted(o.files)); print(o['y'].shape, *o['y'].ravel()); print(o['z'].shape, *o['z'].ravel())" | filecheck %s --check-prefix=OUT

// CHECK:      {{^}}ran @main on target reference in {{[0-9]+\.[0-9]}} ms{{$}}
// CHECK-NEXT: {{^}}  y: float32[2, 3]  min 0  max 2  mean 0.5{{$}}
// CHECK-NEXT: {{^}}  z: float32[3, 2]  min -3  max 2  mean -0.5{{$}}
// CHECK-NOT:  {{.}}

// OUT:      ['y', 'z']
// OUT-NEXT: {{^}}(2, 3) 0.0 0.0 0.0 0.0 1.0 2.0{{$}}
// OUT-NEXT: {{^}}(3, 2) -3.0 0.0 -2.0 1.0 -1.0 2.0{{$}}

func.func @main(%x: tensor<2x3xf32> {tg.name = "x"}) -> (tensor<2x3xf32> {tg.name = "y"}, tensor<3x2xf32> {tg.name = "z"}) {
  %y = tg.relu %x : tensor<2x3xf32>
  %z = tg.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  func.return %y, %z : tensor<2x3xf32>, tensor<3x2xf32>
}
