vta.program @tiny config "pynq" {
  vta.tensor("input", offset = 0, shape = [1, 3, 3, 16], int8)
  vta.tensor("uops", offset = 256, shape = [1], uint32)
  vta.uop(dst = 0, src = 4, wgt = 0)
  vta.load(uop, sram = 0, dram = 64, y = 1, x = 1, stride = 1)
  vta.load(inp, sram = 0, dram = 0, y = 3, x = 3, stride = 3, pad = <top = 1, left = 2, bottom = 3, right = 4>) deps [push_next]
  vta.gemm(reset, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0], wgt = [0, 0]) deps [pop_prev]
  vta.alu(shr, imm = -2, uop = [0, 1], iter = [3, 3], dst = [3, 1], src = [0, 0]) deps [push_next]
  vta.store(out, sram = 0, dram = 4, y = 3, x = 3, stride = 3) deps [pop_prev]
  vta.finish
}
