// CMD: tessel-opt %s -o %o
// ERROR: @p must end with vta.finish
vta.program @p config "pynq" {
  vta.gemm(uop = [0, 1], iter = [1, 1], dst = [0, 0], src = [0, 0], wgt = [0, 0])
}
