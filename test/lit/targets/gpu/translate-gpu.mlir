// RUN: %tessel-translate %s --target gpu | filecheck %s
// RUN: %tessel-translate %s --target gpu --opt form=ll | filecheck %s --check-prefix=LL
// RUN: %tessel-translate %s --target gpu --opt arch=sm_80 --opt ptx=ptx75 | filecheck %s --check-prefix=SM80

// A 3x3 convolution with bias and relu compiled for the GPU without a GPU: the tg
// pipeline with GPU schedules, the NVPTX flavour of the loop-IR emitter, and LLVM's NVPTX
// backend (through llvmlite) to PTX. Every stage function is a kernel entry; its buffers
// are global-space pointers (read-only ones loaded through the non-coherent cache), its
// loop variables the block and thread indices. The conv's default schedule stages the
// input and weight tiles of each input-channel block through shared memory (the block's
// threads copy them, bar.sync, every thread's multiply-adds read them, bar.sync).
// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK:      .visible .entry k0_layout_transform__s0(
// CHECK:      .visible .entry k3_conv2d_nchwc_add_relu__s1(
// CHECK-COUNT-4: .param .u64 .ptr .align 1 k3_conv2d_nchwc_add_relu__s1_param_{{[0-3]}},
// CHECK-NEXT: .param .u64 k3_conv2d_nchwc_add_relu__s1_param_4,
// the tiles: 3 rows x 10 columns x 16 channels of input, 3 x 3 x 16 x 16 of weights
// CHECK:      .shared .align 16 .b8 k3_conv2d_nchwc_add_relu__s1_$_smem{{[0-9]+}}[1920];
// CHECK:      .shared .align 16 .b8 k3_conv2d_nchwc_add_relu__s1_$_smem{{[0-9]+}}[9216];
// CHECK:      cvta.to.global.u64
// CHECK-DAG:  mov.u32 {{.*}}, %ctaid.x;
// CHECK-DAG:  mov.u32 {{.*}}, %ctaid.y;
// CHECK-DAG:  mov.u32 {{.*}}, %tid.x;
// CHECK-DAG:  mov.u32 {{.*}}, %tid.y;
// CHECK:      ld.global.nc.b32
// CHECK:      st.shared.b32
// CHECK:      bar.sync 0;
// CHECK:      ld.shared.b32
// CHECK:      fma.rn.f32
// CHECK:      bar.sync 0;
// relu: a max with 0 before the store
// CHECK:      max.NaN.f32
// CHECK:      st.global.b32
// CHECK:      .visible .entry k4_layout_transform__s0(

// The LLVM IR the backend is given: ptx_kernel entries reading the special registers.
// LL:      target triple = "nvptx64-nvidia-cuda"
// LL:      @k3_conv2d_nchwc_add_relu__s1.smem{{[0-9]+}} = internal addrspace(3) global [480 x float] undef, align 16
// LL:      define ptx_kernel void @k3_conv2d_nchwc_add_relu__s1(ptr noalias %a0, ptr noalias %a1, ptr noalias %a2, ptr noalias %a3, i64 %a4, i64 %a5) #0
// LL:      call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
// LL:      call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// LL:      call void @llvm.nvvm.barrier0()
// LL:      attributes #0 = { nounwind }

// SM80: .version 7.5
// SM80: .target sm_80
func.func @main(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32> {
  %a = tg.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %c = tg.add %a, %b : (tensor<1x32x8x8xf32>, tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32>
  %r = tg.relu %c : tensor<1x32x8x8xf32>
  func.return %r : tensor<1x32x8x8xf32>
}
