// RUN: %tessel-opt %s -p 'vta-codegen{vthreads=2}' | filecheck %s
// RUN: not %tessel-opt %s -p 'vta-codegen{config="zcu9000"}' 2>&1 | filecheck %s --check-prefix=CONFIG

// Two row tiles of an 8x8 layer: each virtual thread loads (inp, wgt) into its own slot and
// announces it (push_next); compute waits for it (pop_prev) and gives the slot back (push_prev)
// to the load two steps later; the second tile's load (another slot) does not wait.
// CHECK:       vta.conv2d {{.*}} program @layer_layer0
// CHECK:       vta.program @layer_layer0 config "pynq" attributes {notes = "layer_layer0: rows=4 oc_blocks=1 ic_blocks=1 vthreads=2, 2 steps, 2 tiles, 196 micro-ops"} {
// CHECK:         vta.load(uop, sram = 0,
// CHECK-NEXT:    vta.load(inp, sram = 0, dram = 0, y = 5, x = 8, stride = 8, pad = <top = 1, left = 1, bottom = 0, right = 1>)
// CHECK-NEXT:    vta.load(wgt, sram = 0, dram = 4, y = 1, x = 9, stride = 9) deps [push_next]
// CHECK-NEXT:    vta.load(acc, {{.*}} deps [pop_prev]
// CHECK-NEXT:    vta.gemm(reset,
// CHECK-NEXT:    vta.gemm(uop = [1, 97], iter = [1, 3], dst = [0, 0], src = [60, 10], wgt = [9, 3])
// CHECK-NEXT:    vta.alu(add,
// CHECK-NEXT:    vta.alu(shr, imm = 5,
// CHECK-NEXT:    vta.alu(max, imm = 0,
// CHECK-NEXT:    vta.alu(min, imm = 127, {{.*}} deps [push_next]
// CHECK-NEXT:    vta.store(out, {{.*}} deps [pop_prev]
// CHECK-NEXT:    vta.load(inp, sram = 1024, dram = 24, y = 5, x = 8, stride = 8, pad = <top = 0, left = 1, bottom = 1, right = 1>)
// CHECK-NEXT:    vta.load(wgt, sram = 512, {{.*}} deps [push_next]
// CHECK:         vta.finish

// CONFIG: error: vta-codegen: unknown VTA preset 'zcu9000' (known: pynq, pynq200, ultra96)
func.func @layer(%x: tensor<1x16x8x8xi8>, %w: tensor<16x16x3x3xi8>, %b: tensor<16xi32>) -> tensor<1x16x8x8xi8> {
  %y = vta.conv2d %x, %w, %b (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, relu, clip = [-128, 127]) : (tensor<1x16x8x8xi8>, tensor<16x16x3x3xi8>, tensor<16xi32>) -> tensor<1x16x8x8xi8>
  func.return %y : tensor<1x16x8x8xi8>
}
