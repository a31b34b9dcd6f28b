// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// A VTA program: DRAM tensors, the micro-op table, the instruction stream.
// CHECK-LABEL: vta.program @tiny attributes {config = "pynq"} {
// CHECK-NEXT:    vta.tensor(input, offset=0, shape=[1, 3, 3, 16], int8)
// CHECK-NEXT:    vta.uop(dst=0, src=4, wgt=0)
// CHECK-NEXT:    vta.load(uop, sram=0, dram=64, y=1, x=1, stride=1)
// CHECK-NEXT:    vta.load(inp, sram=0, dram=0, y=3, x=3, stride=3, pad=[1, 1, 1, 1])
// CHECK-NEXT:    vta.load(wgt, sram=0, dram=1, y=1, x=1, stride=1, deps=[push_next])
// CHECK-NEXT:    vta.gemm(reset, uop=[0, 1], iter=[3, 3], dst=[3, 1], src=[0, 0], wgt=[0, 0], deps=[pop_prev])
// CHECK-NEXT:    vta.gemm(uop=[0, 1], iter=[3, 3], dst=[3, 1], src=[5, 1], wgt=[0, 0])
// CHECK-NEXT:    vta.alu(shr, imm=-2, uop=[0, 1], iter=[3, 3], dst=[3, 1], src=[0, 0])
// CHECK-NEXT:    vta.alu(add, uop=[0, 1], iter=[3, 3], dst=[3, 1], src=[0, 0], deps=[push_next])
// CHECK-NEXT:    vta.store(out, sram=0, dram=4, y=3, x=3, stride=3, deps=[pop_prev])
// CHECK-NEXT:    vta.finish
vta.program @tiny attributes {config = "pynq"} {
  vta.tensor(input, offset=0, shape=[1, 3, 3, 16], int8)
  vta.uop(dst=0, src=4, wgt=0)
  vta.load(uop, sram=0, dram=64, y=1, x=1, stride=1)
  vta.load(inp, sram=0, dram=0, y=3, x=3, stride=3, pad=[1, 1, 1, 1])
  vta.load(wgt, sram=0, dram=1, y=1, x=1, stride=1, deps=[push_next])
  vta.gemm(reset, uop=[0, 1], iter=[3, 3], dst=[3, 1], src=[0, 0], wgt=[0, 0], deps=[pop_prev])
  vta.gemm(uop=[0, 1], iter=[3, 3], dst=[3, 1], src=[5, 1], wgt=[0, 0])
  vta.alu(shr, imm=-2, uop=[0, 1], iter=[3, 3], dst=[3, 1], src=[0, 0])
  vta.alu(add, uop=[0, 1], iter=[3, 3], dst=[3, 1], src=[0, 0], deps=[push_next])
  vta.store(out, sram=0, dram=4, y=3, x=3, stride=3, deps=[pop_prev])
  vta.finish
}

// -----

// An int8 layer placed on VTA, before vta-codegen names its program.
// CHECK-LABEL: func.func @layer
// CHECK: vta.conv2d %x, %w, %b {stride = 2 : i64, pads = array<i64: 1, 0, 1, 0>, shift = 7 : i64, clip = array<i64: 0, 127>, relu = 1 : i64} : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>, tensor<32xi32>) -> tensor<1x32x4x3xi8>
func.func @layer(%x: tensor<1x16x8x8xi8>, %w: tensor<32x16x3x3xi8>, %b: tensor<32xi32>) -> tensor<1x32x4x3xi8> {
  %y = vta.conv2d %x, %w, %b {stride = 2 : i64, pads = array<i64: 1, 0, 1, 0>, shift = 7 : i64, clip = array<i64: 0, 127>, relu = 1 : i64} : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>, tensor<32xi32>) -> tensor<1x32x4x3xi8>
  func.return %y : tensor<1x32x4x3xi8>
}
