// CMD: tessel-opt %s -p vta-codegen -o %o
// ERROR: tiling rows=64 oc_blocks=1 ic_blocks=1 vthreads=1 does not fit: inp needs 4356 entries
func.func @l(%x: tensor<1x16x64x64xi8>, %w: tensor<16x16x3x3xi8>) -> tensor<1x16x64x64xi8> {
  %y = vta.conv2d %x, %w (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>, shift = 5, clip = [-128, 127]) : (tensor<1x16x64x64xi8>, tensor<16x16x3x3xi8>) -> tensor<1x16x64x64xi8>
  func.return %y : tensor<1x16x64x64xi8>
}
sched.stage "l_layer0" {
  %oc, %oh, %ow, %ic, %kh, %kw = sched.axes ["oc", "oh", "ow", "ic", "kh", "kw"]
  %oh.o, %oh.i = sched.split %oh by 64
}
