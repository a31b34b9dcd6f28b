// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// A VTA program: DRAM tensors, the micro-op table, the instruction stream. Every field of an
// instruction is a named property; the text groups the loop fields in pairs (outer, inner).
// CHECK-LABEL: vta.program @tiny config "pynq" {
// CHECK-NEXT:    vta.tensor("input", offset = 0, shape = [1, 3, 3, 16], int8)
// CHECK-NEXT:    vta.tensor("bias", offset = 256, shape = [1, 16], int32)
// CHECK-NEXT:    vta.tensor("uops", offset = 512, shape = [1], uint32)
// CHECK-NEXT:    vta.uop(dst = 0, src = 4, wgt = 0)
// CHECK-NEXT:    vta.load(uop, sram = 0, dram = 64, y = 1, x = 1, stride = 1)
// CHECK-NEXT:    vta.load(inp, sram = 0, dram = 0, y = 3, x = 3, stride = 3, pad = <top = 1, left = 2, bottom = 3, right = 4>)
// CHECK-NEXT:    vta.load(wgt, sram = 0, dram = 1, y = 1, x = 1, stride = 1) deps [push_next]
// CHECK-NEXT:    vta.load(acc, sram = 9, dram = 4, y = 1, x = 1, stride = 1) deps [pop_prev, pop_next]
// CHECK-NEXT:    vta.gemm(reset, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0], wgt = [0, 0]) deps [pop_prev]
// CHECK-NEXT:    vta.gemm(uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [5, 1], wgt = [9, 3])
// CHECK-NEXT:    vta.alu(shr, imm = -2, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0])
// CHECK-NEXT:    vta.alu(max, imm = 0, reset, uop = [0, 1], iter = [1, 1], dst = [0, 0], src = [0, 0])
// CHECK-NEXT:    vta.alu(add, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [9, 0]) deps [push_prev, push_next]
// CHECK-NEXT:    vta.alu(mul, imm = 3, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0])
// CHECK-NEXT:    vta.alu(min, imm = 127, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0])
// CHECK-NEXT:    vta.store(out, sram = 0, dram = 4, y = 3, x = 3, stride = 3) deps [pop_prev, push_prev]
// CHECK-NEXT:    vta.store(acc, sram = 0, dram = 4, y = 3, x = 3, stride = 3)
// CHECK-NEXT:    vta.finish deps [pop_next]
// CHECK-NEXT:  }
vta.program @tiny config "pynq" {
  vta.tensor("input", offset = 0, shape = [1, 3, 3, 16], int8)
  vta.tensor("bias", offset = 256, shape = [1, 16], int32)
  vta.tensor("uops", offset = 512, shape = [1], uint32)
  vta.uop(dst = 0, src = 4, wgt = 0)
  vta.load(uop, sram = 0, dram = 64, y = 1, x = 1, stride = 1)
  // the padding's sides are named, so their order in the text does not matter
  vta.load(inp, sram = 0, dram = 0, y = 3, x = 3, stride = 3, pad = <right = 4, bottom = 3, left = 2, top = 1>)
  vta.load(wgt, sram = 0, dram = 1, y = 1, x = 1, stride = 1) deps [push_next]
  // deps print in the ISA's order
  vta.load(acc, sram = 9, dram = 4, y = 1, x = 1, stride = 1) deps [pop_next, pop_prev]
  vta.gemm(reset, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0], wgt = [0, 0]) deps [pop_prev]
  vta.gemm(uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [5, 1], wgt = [9, 3])
  vta.alu(shr, imm = -2, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0])
  vta.alu(max, imm = 0, reset, uop = [0, 1], iter = [1, 1], dst = [0, 0], src = [0, 0])
  vta.alu(add, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [9, 0]) deps [push_prev, push_next]
  vta.alu(mul, imm = 3, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0])
  vta.alu(min, imm = 127, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0])
  vta.store(out, sram = 0, dram = 4, y = 3, x = 3, stride = 3) deps [pop_prev, push_prev]
  vta.store(acc, sram = 0, dram = 4, y = 3, x = 3, stride = 3)
  vta.finish deps [pop_next]
}

// -----

// The configuration names a preset: ultra96's 128-bit bus leaves the field widths as they are.
// CHECK-LABEL: vta.program @other config "ultra96" attributes {notes = "hand-written"} {
// CHECK-NEXT:    vta.finish
vta.program @other config "ultra96" attributes {notes = "hand-written"} {
  vta.finish
}

// -----

// An int8 layer placed on VTA, before vta-codegen names its program ...
// CHECK-LABEL: func.func @layer
// CHECK: vta.conv2d %x, %w, %b (stride = 2, pads = <top = 1, left = 0, bottom = 1, right = 0>, shift = 7, relu, clip = [0, 127]) : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>, tensor<32xi32>) -> tensor<1x32x4x3xi8>
func.func @layer(%x: tensor<1x16x8x8xi8>, %w: tensor<32x16x3x3xi8>, %b: tensor<32xi32>) -> tensor<1x32x4x3xi8> {
  %y = vta.conv2d %x, %w, %b (stride = 2, pads = <top = 1, left = 0, bottom = 1, right = 0>, shift = 7, relu, clip = [0, 127]) : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>, tensor<32xi32>) -> tensor<1x32x4x3xi8>
  func.return %y : tensor<1x32x4x3xi8>
}

// -----

// ... and after, without a bias or ReLU.
// CHECK-LABEL: func.func @compiled
// CHECK: vta.conv2d %x, %w (stride = 1, pads = <top = 0, left = 0, bottom = 0, right = 0>, shift = 0, clip = [-2147483648, 2147483647]) program @compiled_layer0 : (tensor<1x16x4x4xi8>, tensor<16x16x1x1xi8>) -> tensor<1x16x4x4xi8>
func.func @compiled(%x: tensor<1x16x4x4xi8>, %w: tensor<16x16x1x1xi8>) -> tensor<1x16x4x4xi8> {
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 0, left = 0, bottom = 0, right = 0>, shift = 0, clip = [-2147483648, 2147483647]) program @compiled_layer0 : (tensor<1x16x4x4xi8>, tensor<16x16x1x1xi8>) -> tensor<1x16x4x4xi8>
  func.return %y : tensor<1x16x4x4xi8>
}
