// tessel-run with random inputs: --seed makes them reproducible; one summary line per
// named output (dtype, shape, min, max, mean).

// RUN: %tessel-run %s --seed 3 | filecheck %s
// RUN: %tessel-run %s --seed 3 | filecheck %s
// RUN: %tessel-run %s --seed 4 | filecheck %s --check-prefix=OTHER
// RUN: %tessel-run %s | filecheck %s --check-prefix=DEFAULT
// RUN: %tessel-run %s --seed 0 | filecheck %s --check-prefix=DEFAULT

// CHECK:      {{^}}ran @main on target reference in {{[0-9]+\.[0-9]}} ms{{$}}
// CHECK-NEXT: {{^}}  y: float32[2, 3]  min 0  max 2.04092  mean 0.409836{{$}}
// CHECK-NEXT: {{^}}  z: float32[3, 2]  min -2.55567  max 2.04092  mean -0.222111{{$}}
// CHECK-NOT:  {{.}}

// OTHER:      ran @main on target reference
// OTHER-NEXT: {{^}}  y: float32[2, 3]  min 0  max 1.66372  mean 0.387145{{$}}
// OTHER-NEXT: {{^}}  z: float32[3, 2]  min -1.6414  max 1.66372  mean -0.0250395{{$}}

// DEFAULT:      ran @main on target reference
// DEFAULT-NEXT: {{^}}  y: float32[2, 3]  min 0  max 0.640423  mean 0.205441{{$}}
// DEFAULT-NEXT: {{^}}  z: float32[3, 2]  min -0.535669  max 0.640423  mean 0.0941456{{$}}

func.func @main(%x: tensor<2x3xf32> {tg.name = "x"}) -> (tensor<2x3xf32> {tg.name = "y"}, tensor<3x2xf32> {tg.name = "z"}) {
  %y = tg.relu %x : tensor<2x3xf32>
  %z = tg.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  func.return %y, %z : tensor<2x3xf32>, tensor<3x2xf32>
}
