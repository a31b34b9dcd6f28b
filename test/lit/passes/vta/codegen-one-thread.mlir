// RUN: %tessel-opt %s -p 'vta-codegen{vthreads=1}' | filecheck %s

// With one thread (a 64x64 image needs several row tiles) every load after the first waits
// until the GEMM before it released the only input slot (pop_next), and every tile's compute
// after the first waits until the store before it released the accumulators (pop_next): no
// overlap, which is what virtual threads remove.
// CHECK:       vta.program @layer_layer0 config "pynq" attributes {notes = "layer_layer0: {{.*}}vthreads=1
// CHECK:         vta.load(inp, sram = 0, dram = 0, y = 17, x = 64, stride = 64, pad = <top = 1, left = 1, bottom = 0, right = 1>)
// CHECK-NEXT:    vta.load(wgt, {{.*}} deps [push_next]
// CHECK-NEXT:    vta.load(acc, {{.*}} deps [pop_prev]
// CHECK:         vta.alu(min, imm = 127, {{.*}} deps [push_prev, push_next]
// CHECK-NEXT:    vta.store(out, {{.*}} deps [pop_prev, push_prev]
// The weights stay resident: the next step loads only its input rows.
// CHECK-NEXT:    vta.load(inp, sram = 0, dram = 960, y = 18, {{.*}} deps [pop_next, push_next]
// CHECK-NEXT:    vta.load(acc, {{.*}} deps [pop_prev, pop_next]
func.func @layer(%x: tensor<1x16x64x64xi8>, %w: tensor<16x16x3x3xi8>, %b: tensor<16xi32>) -> tensor<1x16x64x64xi8> {
  %y = vta.conv2d %x, %w, %b (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, relu, clip = [-128, 127]) : (tensor<1x16x64x64xi8>, tensor<16x16x3x3xi8>, tensor<16xi32>) -> tensor<1x16x64x64xi8>
  func.return %y : tensor<1x16x64x64xi8>
}
