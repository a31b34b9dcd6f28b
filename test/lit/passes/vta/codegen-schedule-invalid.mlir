// RUN: %tessel-opt %s --split-input-file -p vta-codegen --verify-diagnostics | filecheck %s

// Schedules vta-codegen cannot apply: one error naming the primitive, or the buffer that overflows.

func.func @vectorized(%x: tensor<1x16x8x8xi8>, %w: tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8> {
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, clip = [-128, 127]) : (tensor<1x16x8x8xi8>, tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}
sched.stage "vectorized_layer0" {
  %oc, %oh, %ow, %ic, %kh, %kw = sched.axes ["oc", "oh", "ow", "ic", "kh", "kw"]
  // CHECK: codegen-schedule-invalid.mlir:[[# @LINE + 1]]:3: error: sched.vectorize in sched.stage "vectorized_layer0": is not a VTA schedule primitive (VTA takes split, virtual_thread and tensorize)
  sched.vectorize %ow
}

// -----

func.func @too_big(%x: tensor<1x16x64x64xi8>, %w: tensor<16x16x3x3xi8>) -> tensor<1x16x64x64xi8> {
  // CHECK: codegen-schedule-invalid.mlir:[[# @LINE + 1]]:3: error: vta-codegen: layer too_big_layer0: tiling rows=64 oc_blocks=1 ic_blocks=1 vthreads=1 does not fit: inp needs 4356 entries, a thread's slot holds 2048
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, clip = [-128, 127]) : (tensor<1x16x64x64xi8>, tensor<16x16x3x3xi8>) -> tensor<1x16x64x64xi8>
  func.return %y : tensor<1x16x64x64xi8>
}
sched.stage "too_big_layer0" {
  %oc, %oh, %ow, %ic, %kh, %kw = sched.axes ["oc", "oh", "ow", "ic", "kh", "kw"]
  %oh.o, %oh.i = sched.split %oh by 64
}

// -----

func.func @wrong_thread_loop(%x: tensor<1x16x8x8xi8>, %w: tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8> {
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, clip = [-128, 127]) : (tensor<1x16x8x8xi8>, tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}
sched.stage "wrong_thread_loop_layer0" {
  %oc, %oh, %ow, %ic, %kh, %kw = sched.axes ["oc", "oh", "ow", "ic", "kh", "kw"]
  // CHECK: codegen-schedule-invalid.mlir:[[# @LINE + 1]]:3: error: sched.virtual_thread in sched.stage "wrong_thread_loop_layer0": takes the inner loop of a split of the tile loop (%oh.o or %oc.o) by the thread count
  sched.virtual_thread %ow
}
