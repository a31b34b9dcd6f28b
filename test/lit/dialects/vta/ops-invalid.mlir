// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Each malformed program or layer is one error at the op, naming the field and the limit.
vta.program @a attributes {config = "pynq"} {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.load' op LOAD: field sram_base=70000 does not fit 16 bits (0..65535)
  vta.load(inp, sram=70000, dram=0, y=1, x=1, stride=1)
  vta.finish
}

// -----

vta.program @b attributes {config = "pynq"} {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.store' op stores only OUT, without padding
  vta.store(out, sram=0, dram=0, y=1, x=1, stride=1, pad=[1, 0, 0, 0])
  vta.finish
}

// -----

// CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:1: error: 'vta.program' op @c must end with vta.finish
vta.program @c attributes {config = "pynq"} {
  vta.gemm(uop=[0, 1], iter=[1, 1], dst=[0, 0], src=[0, 0])
}

// -----

vta.program @d attributes {config = "pynq"} {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:10: error: vta.alu: unexpected bogus for alu
  vta.alu(add, bogus=1, uop=[0, 1], iter=[1, 1], dst=[0, 0], src=[0, 0])
  vta.finish
}

// -----

vta.program @e attributes {config = "pynq"} {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.uop' op uop: field dst=5000 does not fit 11 bits (0..2047)
  vta.uop(dst=5000, src=0, wgt=0)
  vta.finish
}

// -----

// CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:1: error: 'vta.program' op unknown VTA preset 'zcu9000' (known: pynq, pynq200, ultra96)
vta.program @f attributes {config = "zcu9000"} {
  vta.finish
}

// -----

vta.program @g attributes {config = "pynq"} {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:11: error: vta.load: deps must list some of pop_prev, pop_next, push_prev, push_next, got ['pop_later']
  vta.load(inp, sram=0, dram=0, y=1, x=1, stride=1, deps=[pop_later])
  vta.finish
}

// -----

func.func @h(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8> {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.conv2d' op input must have element type i8, got f32
  %y = vta.conv2d %x, %w {stride = 1 : i64, pads = array<i64: 1, 1, 1, 1>, shift = 7 : i64, clip = array<i64: 0, 127>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}

// -----

func.func @i(%x: tensor<1x16x8x8xi8>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x7x8xi8> {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.conv2d' op result shape should be (1, 32, 8, 8), got (1, 32, 7, 8)
  %y = vta.conv2d %x, %w {stride = 1 : i64, pads = array<i64: 1, 1, 1, 1>, shift = 7 : i64, clip = array<i64: 0, 127>} : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>) -> tensor<1x32x7x8xi8>
  func.return %y : tensor<1x32x7x8xi8>
}

// -----

func.func @j() {
  // CHECK: dialect-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.finish' op must be inside a vta.program
  vta.finish
  func.return
}
