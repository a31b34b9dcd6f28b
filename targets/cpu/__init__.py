"""The CPU target: LLVM IR from loop IR (llvmlite), JIT for the host, a threaded runtime."""
