// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines=engines=cudnn,codegen --graph-lower-to-linalg --graph-codegen-to-ptx | FileCheck %s

// The whole broadcast chain (mul, gelu, tanh; f16 and f32 in, bf16 out) is
// one kernel: one launch of 256 threads per block over the collapsed
// 8x100x250 space, bare pointers, sm_90 PTX with global loads and no local
// memory.
// CHECK: gpu.launch_func @chain_group0_kernel::@chain_group0_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @chain_group0_kernel  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// CHECK-SAME: .target sm_90
// CHECK-SAME: .entry chain_group0_kernel(
// CHECK-SAME: .param .u64 .ptr .align 1 chain_group0_kernel_param_0
// CHECK-NOT: .local
// CHECK-SAME: ld.global.b16
// CHECK-NOT: .local
// CHECK-SAME: ld.global.b32
// CHECK-NOT: .local
// CHECK-SAME: st.global.b16
// CHECK-NOT: .local
// CHECK-SAME: ret;
graph.graph @chain(%x: tensor<8x100x250xf16>, %s: tensor<1x1x250xf32>)
    -> tensor<8x100x250xbf16> {
  %a = graph.pointwise mul(%x, %s) : (tensor<8x100x250xf16>, tensor<1x1x250xf32>) -> tensor<8x100x250xf32>
  %b = graph.pointwise gelu(%a) : (tensor<8x100x250xf32>) -> tensor<8x100x250xf32>
  %c = graph.pointwise tanh(%b) : (tensor<8x100x250xf32>) -> tensor<8x100x250xbf16>
  graph.output %c : tensor<8x100x250xbf16>
}
