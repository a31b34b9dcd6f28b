// RUN: %tessel-opt %s --split-input-file -p vta-codegen --verify-diagnostics | filecheck %s
// RUN: not %tessel-opt %s --split-input-file -p 'vta-codegen{vthreads=3}' 2>&1 | filecheck %s --check-prefix=VT

// Layers vta-codegen cannot compile: one error at the layer naming it and the reason.

// VT: codegen-invalid.mlir:[[# @LINE + 3]]:3: error: vta-codegen: virtual threads must be 1, 2 or 4, got 3
func.func @channels(%x: tensor<1x24x8x8xi8>, %w: tensor<16x24x3x3xi8>) -> tensor<1x16x8x8xi8> {
  // CHECK: codegen-invalid.mlir:[[# @LINE + 1]]:3: error: vta-codegen: layer channels_layer0 does not fit VTA: 24 input channels are not a multiple of 16
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, clip = [-128, 127]) : (tensor<1x24x8x8xi8>, tensor<16x24x3x3xi8>) -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}

// -----

func.func @shift(%x: tensor<1x16x8x8xi8>, %w: tensor<16x16x1x1xi8>) -> tensor<1x16x8x8xi8> {
  // CHECK: codegen-invalid.mlir:[[# @LINE + 1]]:3: error: vta-codegen: layer shift_layer0 does not fit VTA: shift 20 does not fit the ALU's 5-bit signed shift amount (0..15)
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 0, left = 0, bottom = 0, right = 0>, shift = 20, clip = [-128, 127]) : (tensor<1x16x8x8xi8>, tensor<16x16x1x1xi8>) -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}

// -----

func.func @wide(%x: tensor<1x16x3x4000xi8>, %w: tensor<16x16x3x3xi8>) -> tensor<1x16x1x3998xi8> {
  // CHECK: codegen-invalid.mlir:[[# @LINE + 1]]:3: error: vta-codegen: layer wide_layer0: even one output row of one channel block does not fit (inp needs 12000 entries, a thread's slot holds 1024)
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 0, left = 0, bottom = 0, right = 0>, shift = 5, clip = [-128, 127]) : (tensor<1x16x3x4000xi8>, tensor<16x16x3x3xi8>) -> tensor<1x16x1x3998xi8>
  func.return %y : tensor<1x16x1x3998xi8>
}
