// RUN: %tessel-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Each malformed program or layer is one error at the op (or the token), naming what is wrong.

// --- vta.program

// CHECK: ops-invalid.mlir:[[# @LINE + 1]]:1: error: 'vta.program' op @no_finish must end with vta.finish
vta.program @no_finish config "pynq" {
  vta.gemm(uop = [0, 1], iter = [1, 1], dst = [0, 0], src = [0, 0], wgt = [0, 0])
}

// -----

// CHECK: ops-invalid.mlir:[[# @LINE + 1]]:1: error: 'vta.program' op @early_finish has a vta.finish before its end
vta.program @early_finish config "pynq" {
  vta.finish
  vta.gemm(uop = [0, 1], iter = [1, 1], dst = [0, 0], src = [0, 0], wgt = [0, 0])
  vta.finish
}

// -----

// CHECK: ops-invalid.mlir:[[# @LINE + 1]]:1: error: 'vta.program' op unknown VTA preset 'zcu9000' (known: pynq, pynq200, ultra96)
vta.program @preset config "zcu9000" {
  vta.finish
}

// -----

func.func @outside() {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.finish' op 'vta.finish' expects parent op 'vta.program'
  vta.finish
  func.return
}

// -----

func.func @uop_outside() {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.uop' op 'vta.uop' expects parent op 'vta.program'
  vta.uop(dst = 0, src = 0, wgt = 0)
  func.return
}

// -----

// --- vta.tensor

vta.program @aligned config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.tensor' op offset 100 is not 256-byte aligned
  vta.tensor("input", offset = 100, shape = [1, 3, 3, 16], int8)
  vta.finish
}

// -----

vta.program @dtype config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:58: error: Expected `int8`, `int32`, or `uint32`.
  vta.tensor("input", offset = 0, shape = [1, 3, 3, 16], int16)
  vta.finish
}

// -----

// --- vta.uop and the instructions: every field must fit its width in the program's configuration

vta.program @uop_field config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.uop' op uop: field dst=5000 does not fit 11 bits (0..2047)
  vta.uop(dst = 5000, src = 0, wgt = 0)
  vta.finish
}

// -----

vta.program @load_field config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.load' op LOAD: field sram_base=70000 does not fit 16 bits (0..65535)
  vta.load(inp, sram = 70000, dram = 0, y = 1, x = 1, stride = 1)
  vta.finish
}

// -----

vta.program @pad_field config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.load' op LOAD: field x_pad_1=16 does not fit 4 bits (0..15)
  vta.load(inp, sram = 0, dram = 0, y = 1, x = 1, stride = 1, pad = <top = 0, left = 0, bottom = 0, right = 16>)
  vta.finish
}

// -----

vta.program @gemm_field config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.gemm' op GEMM: field iter_out=16384 does not fit 14 bits (0..16383)
  vta.gemm(uop = [0, 1], iter = [16384, 1], dst = [0, 0], src = [0, 0], wgt = [0, 0])
  vta.finish
}

// -----

vta.program @alu_imm config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.alu' op ALU: field imm=40000 does not fit 16 bits (-32768..32767)
  vta.alu(min, imm = 40000, uop = [0, 1], iter = [1, 1], dst = [0, 0], src = [0, 0])
  vta.finish
}

// -----

vta.program @store_field config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.store' op STORE: field dram_base=-1 does not fit 32 bits (0..4294967295)
  vta.store(out, sram = 0, dram = -1, y = 1, x = 1, stride = 1)
  vta.finish
}

// -----

vta.program @uop_range config "pynq" {
  vta.load(inp, sram = 0, dram = 0, y = 1, x = 1, stride = 1)
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.gemm' op GEMM: field uop_end=16384 does not fit 14 bits (0..16383)
  vta.gemm(uop = [0, 16384], iter = [1, 1], dst = [0, 0], src = [0, 0], wgt = [0, 0])
  vta.finish
}

// -----

// --- what the declarations rule out

vta.program @store_inp config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: Expected one of #vta<buffer acc>, #vta<buffer out>, but got #vta<buffer inp>
  vta.store(inp, sram = 0, dram = 0, y = 1, x = 1, stride = 1)
  vta.finish
}

// -----

vta.program @store_pad config "pynq" {
  // a STORE has no padding fields
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:62: error: Expected ')'
  vta.store(out, sram = 0, dram = 0, y = 1, x = 1, stride = 1, pad = <top = 1, left = 0, bottom = 0, right = 0>)
  vta.finish
}

// -----

vta.program @deps config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:69: error: Expected `pop_prev`, `pop_next`, `push_prev`, or `push_next`.
  vta.load(inp, sram = 0, dram = 0, y = 1, x = 1, stride = 1) deps [pop_later]
  vta.finish
}

// -----

vta.program @padding_sides config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:69: error: #vta.padding takes top, left, bottom and right once each, got top, left, top, right
  vta.load(inp, sram = 0, dram = 0, y = 1, x = 1, stride = 1, pad = <top = 1, left = 1, top = 1, right = 1>)
  vta.finish
}

// -----

vta.program @padding_negative config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: #vta.padding must not be negative, got (-1, 0, 0, 0)
  vta.load(inp, sram = 0, dram = 0, y = 1, x = 1, stride = 1, pad = <top = -1, left = 0, bottom = 0, right = 0>)
  vta.finish
}

// -----

vta.program @alu_item config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:16: error: Expected 'uop'
  vta.alu(add, bogus = 1, uop = [0, 1], iter = [1, 1], dst = [0, 0], src = [0, 0])
  vta.finish
}

// -----

vta.program @alu_op config "pynq" {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:11: error: Expected `min`, `max`, `add`, `shr`, or `mul`.
  vta.alu(div, uop = [0, 1], iter = [1, 1], dst = [0, 0], src = [0, 0])
  vta.finish
}

// -----

// --- vta.conv2d

func.func @float_input(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8> {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: Expected attribute i8 but got f32
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 7, clip = [0, 127]) : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}

// -----

func.func @i8_bias(%x: tensor<1x16x8x8xi8>, %w: tensor<32x16x3x3xi8>, %b: tensor<32xi8>) -> tensor<1x32x8x8xi8> {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: Expected attribute i32 but got i8
  %y = vta.conv2d %x, %w, %b (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 7, clip = [0, 127]) : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>, tensor<32xi8>) -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}

// -----

func.func @i32_result(%x: tensor<1x16x8x8xi8>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi32> {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: Expected attribute i8 but got i32
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 7, clip = [0, 127]) : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi32>
  func.return %y : tensor<1x32x8x8xi32>
}

// -----

func.func @rank(%x: tensor<16x8x8xi8>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8> {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.conv2d' op input and weight must be 4-D (NCHW, OIHW)
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 7, clip = [0, 127]) : (tensor<16x8x8xi8>, tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}

// -----

func.func @stride(%x: tensor<1x16x8x8xi8>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8> {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.conv2d' op stride must be positive, got 0
  %y = vta.conv2d %x, %w (stride = 0, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 7, clip = [0, 127]) : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}

// -----

func.func @channels(%x: tensor<1x16x8x8xi8>, %w: tensor<32x32x3x3xi8>) -> tensor<1x32x8x8xi8> {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.conv2d' op expects batch 1 and weights over 16 input channels
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 7, clip = [0, 127]) : (tensor<1x16x8x8xi8>, tensor<32x32x3x3xi8>) -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}

// -----

func.func @result(%x: tensor<1x16x8x8xi8>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x7x8xi8> {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.conv2d' op result shape should be (1, 32, 8, 8), got (1, 32, 7, 8)
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 7, clip = [0, 127]) : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>) -> tensor<1x32x7x8xi8>
  func.return %y : tensor<1x32x7x8xi8>
}

// -----

func.func @bias_shape(%x: tensor<1x16x8x8xi8>, %w: tensor<32x16x3x3xi8>, %b: tensor<16xi32>) -> tensor<1x32x8x8xi8> {
  // CHECK: ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'vta.conv2d' op bias must have shape (32,)
  %y = vta.conv2d %x, %w, %b (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 7, clip = [0, 127]) : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>, tensor<16xi32>) -> tensor<1x32x8x8xi8>
  func.return %y : tensor<1x32x8x8xi8>
}
