// RUN: %tessel-opt %s --split-input-file -p vta-codegen | filecheck %s

// vta-codegen writes the schedule it chose beside the program ...
// CHECK-LABEL: vta.program @chosen_layer0
// CHECK:       sched.stage "chosen_layer0" {
// CHECK-NEXT:    %oc, %oh, %ow, %ic, %kh, %kw = sched.axes ["oc", "oh", "ow", "ic", "kh", "kw"]
// CHECK-NEXT:    %oc.o, %oc.i = sched.split %oc by 1
// CHECK-NEXT:    %oh.o, %oh.i = sched.split %oh by 4
// CHECK-NEXT:    %ic.o, %ic.i = sched.split %ic by 1
// CHECK-NEXT:    %oh.t, %oh.v = sched.split %oh.o by 2
// CHECK-NEXT:    sched.virtual_thread %oh.v
// CHECK-NEXT:    sched.tensorize %ic.i
func.func @chosen(%x: tensor<1x16x8x8xi8>, %w: tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8> {
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, clip = [-128, 127]) : (tensor<1x16x8x8xi8>, tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}

// -----

// ... and applies one the module already holds under the program's name: 2 rows per tile,
// 4 virtual threads.
// CHECK-LABEL: vta.program @given_layer0 config "pynq" attributes {notes = "given_layer0: rows=2 oc_blocks=1 ic_blocks=1 vthreads=4, 4 steps, 4 tiles
func.func @given(%x: tensor<1x16x8x8xi8>, %w: tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8> {
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, clip = [-128, 127]) : (tensor<1x16x8x8xi8>, tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}
sched.stage "given_layer0" {
  %oc, %oh, %ow, %ic, %kh, %kw = sched.axes ["oc", "oh", "ow", "ic", "kh", "kw"]
  %oh.o, %oh.i = sched.split %oh by 2
  %oh.t, %oh.v = sched.split %oh.o by 4
  sched.virtual_thread %oh.v
}
