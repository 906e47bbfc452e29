// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: GroupNorm as a user writes it on a channels-last f16 tensor: the
// reshape to [N, G, C/G*H*W] is no view of NHWC memory, so the generated
// kernels gather it into packed scratch before the per-group statistics.
// GPU-ARGS: --random-inputs=5 --check-against=cpu
graph.graph @group_stats(%x: tensor<2x16x8x8xf16, #graph.strides<[1024, 1, 128, 16]>> {graph.name = "X"})
    -> (tensor<2x4x1xf32> {graph.name = "mean"}, tensor<2x4x256xf16> {graph.name = "grouped"})
    attributes {compute_data_type = f32} {
  %g = graph.reshape %x : (tensor<2x16x8x8xf16, #graph.strides<[1024, 1, 128, 16]>>) -> tensor<2x4x256xf16>
  %m = graph.reduction avg %g : (tensor<2x4x256xf16>) -> tensor<2x4x1xf32>
  %n = graph.pointwise identity(%g) : (tensor<2x4x256xf16>) -> tensor<2x4x256xf16>
  graph.output %m, %n : tensor<2x4x1xf32>, tensor<2x4x256xf16>
}
