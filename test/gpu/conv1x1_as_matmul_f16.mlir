// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=3 --autotune --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: conv1x1/group0:
// CHECK-NOT: wrong result
// CHECK: [as 1x1 convolution as a matmul]: timed
// CHECK-NOT: wrong result
// CHECK: [SUCCESS]
// GPU: the ResNet bottleneck's first group at batch 32 (1x1 conv 256 -> 64,
// batchnorm inference, relu; fp16 channels-last). Its device tensors span
// 64 MB, so its plan list also holds the plans of the group described as a
// matmul over the same bytes (convAsMatmul); --autotune runs every plan of
// both descriptions against the CPU reference, drops any with a wrong
// result (reported as one) and runs the fastest.
// GPU-ARGS: --random-inputs=3 --autotune --check-against=cpu
graph.graph @conv1x1(%x: tensor<32x256x56x56xf16, #graph.strides<[802816, 1, 14336, 256]>> {graph.name = "x"},
                     %w: tensor<64x256x1x1xf16, #graph.strides<[256, 1, 256, 256]>> {graph.name = "w"},
                     %scale: tensor<1x64x1x1xf32> {graph.name = "scale"},
                     %bias: tensor<1x64x1x1xf32> {graph.name = "bias"},
                     %mean: tensor<1x64x1x1xf32> {graph.name = "mean"},
                     %inv: tensor<1x64x1x1xf32> {graph.name = "inv_variance"})
    -> (tensor<32x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>> {graph.name = "y"})
    attributes {compute_data_type = f32} {
  %c = graph.conv_fprop %x, %w {padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<32x256x56x56xf16, #graph.strides<[802816, 1, 14336, 256]>>, tensor<64x256x1x1xf16, #graph.strides<[256, 1, 256, 256]>>) -> tensor<32x64x56x56xf32>
  %n = graph.batchnorm_inference %c, mean %mean, inv_variance %inv, scale %scale, bias %bias : (tensor<32x64x56x56xf32>, tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>) -> tensor<32x64x56x56xf32>
  %y = graph.pointwise relu(%n) : (tensor<32x64x56x56xf32>) -> tensor<32x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>>
  graph.output %y : tensor<32x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>>
}
