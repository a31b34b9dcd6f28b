// CMD: tessel-opt %s -o %o
// ERROR: 'vta.load' op LOAD: field sram_base=70000 does not fit 16 bits (0..65535)
vta.program @p config "pynq" {
  vta.load(inp, sram = 70000, dram = 0, y = 1, x = 1, stride = 1)
  vta.finish
}
