"""The instruction stream of one int8 layer: load, tensorized GEMM, ALU epilogue and store blocks, interleaved over virtual threads."""
