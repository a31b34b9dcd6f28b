// --print-ir-after-all dumps the IR after every pass on stderr; stdout has the result.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessel-opt %s -p dce,cse --print-ir-after-all > %t/stdout 2> %t/stderr
// RUN: filecheck %s --check-prefix=ERR --input-file %t/stderr
// RUN: filecheck %s --check-prefix=OUT --input-file %t/stdout

// After dce the unused exp is gone; after cse the duplicate relu is gone too.
// ERR:      {{^}}// -----// IR Dump After dce //----- //{{$}}
// ERR-NEXT: builtin.module {
// ERR:        %y = tg.relu %x : tensor<2xf32>
// ERR-NEXT:   %z = tg.relu %x : tensor<2xf32>
// ERR-NEXT:   %s = tg.add %y, %z : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// ERR-NOT:    tg.exp
// ERR:      {{^}}// -----// IR Dump After cse //----- //{{$}}
// ERR-NEXT: builtin.module {
// ERR:        %y = tg.relu %x : tensor<2xf32>
// ERR-NEXT:   %s = tg.add %y, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// ERR-NOT:    IR Dump

// OUT-NOT:    IR Dump
// OUT:        %y = tg.relu %x : tensor<2xf32>
// OUT-NEXT:   %s = tg.add %y, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// OUT-NEXT:   func.return %s : tensor<2xf32>

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = tg.relu %x : tensor<2xf32>
  %z = tg.relu %x : tensor<2xf32>
  %e = tg.exp %x : tensor<2xf32>
  %s = tg.add %y, %z : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %s : tensor<2xf32>
}
