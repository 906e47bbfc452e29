// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines=engines=codegen --graph-generate-kernels --graph-kernels-to-ptx | FileCheck %s

// The generated kernels reach sm_90 PTX in process: 16-byte global loads
// and stores, warp shuffles and shared memory for the row reduction, no
// local memory (no spills, no stack arrays), no external calls.
// CHECK-LABEL: gpu.binary @rms_group0
// CHECK-SAME: .target sm_90
// CHECK-NOT: .local
// CHECK-SAME: .minnctapersm 4
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: st.global.v4.b32
graph.graph @rms(%x: tensor<64x4096xbf16>, %w: tensor<1x4096xbf16>)
    -> (tensor<64x4096xbf16>, tensor<64x1xf32>) {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y, %iv = graph.rmsnorm training %x, scale %w, epsilon %eps : (tensor<64x4096xbf16>, tensor<1x4096xbf16>, tensor<1x1xf32>) -> (tensor<64x4096xbf16>, tensor<64x1xf32>)
  graph.output %y, %iv : tensor<64x4096xbf16>, tensor<64x1xf32>
}

// -----

// fmod lowers to libdevice's __nv_fmodf (linked in, not external); the
// f32 pointwise stage moves 16 bytes (4 floats) per access.
// CHECK-LABEL: gpu.binary @mod_group0
// CHECK-NOT: .extern
// CHECK-NOT: .local
// CHECK-SAME: ld.global.v4.b32
graph.graph @mod(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = graph.pointwise mod(%x, %y) : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  graph.output %r : tensor<64x256xf32>
}

// -----

// tanh with a bf16 result is one tanh.approx.f32 per element, no libdevice.
// CHECK-LABEL: gpu.binary @tanh_bf16_group0
// CHECK-NOT: .local
// CHECK-SAME: tanh.approx.f32
graph.graph @tanh_bf16(%x: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  %r = graph.pointwise tanh(%x) : (tensor<64x256xbf16>) -> tensor<64x256xbf16>
  graph.output %r : tensor<64x256xbf16>
}
