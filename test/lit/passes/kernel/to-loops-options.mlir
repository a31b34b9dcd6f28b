// RUN: not %tessel-opt %s -p 'kernel-to-loops{tile=14}' 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=UNKNOWN
// RUN: not %tessel-opt %s -p 'tg-fuse,tg-to-kernel,kernel-to-loops{target=tpu}' 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=TARGET
// RUN: not %tessel-opt %s -p 'tg-fuse,tg-to-kernel,kernel-to-loops{vector_bits=300}' 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=BITS
// RUN: not %tessel-opt %s -p 'tg-fuse,tg-to-kernel,kernel-to-loops{l1_bytes=100}' 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=L1
// RUN: not %tessel-opt %s -p 'tg-fuse,tg-to-kernel,kernel-to-loops{l1_bytes=65536 l2_bytes=32768}' 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=L2

// The error paths of kernel-to-loops's options, `target` (cpu or gpu), `vector_bits`
// (the CPU's vector register for the default schedules: 128, 256 or 512) and the core's
// caches `l1_bytes` and `l2_bytes` (at least 4 KiB, the L2 no smaller than the L1), each
// refused in one line, exit 1, before running anything. (Schedules are sched IR in the
// module: their errors are in to-loops-sched-invalid.mlir. The wording after the
// pipeline is xDSL's; the checks keep only what names the problem.)

// UNKNOWN:      lines: 1
// UNKNOWN-NEXT: {{^}}tessel-opt: error: bad pass pipeline 'kernel-to-loops{tile=14}': {{.*}}["tile"] not found in expected arguments ["target", "vector_bits", "l1_bytes", "l2_bytes"]{{$}}

// TARGET:      lines: 1
// TARGET-NEXT: error: kernel-to-loops{target=tpu}: the target must be cpu or gpu

// BITS:      lines: 1
// BITS-NEXT: error: kernel-to-loops{vector_bits=300}: the vector bits must be 128, 256 or 512

// L1:      lines: 1
// L1-NEXT: error: kernel-to-loops{l1_bytes=100}: a cache size must be at least 4096 bytes

// L2:      lines: 1
// L2-NEXT: error: kernel-to-loops{l1_bytes=65536 l2_bytes=32768}: the L2 is smaller than the L1

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tg.relu %x : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
