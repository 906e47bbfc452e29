// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=12 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: rmsnorm_without_scale/group0: codegen
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: the graph the Python package builds for the frontend's
// rmsnorm(scale=None) (square, mean over the row, + epsilon, rsqrt, scale
// the input): one row group the generated kernels run, Y in bf16 and
// inv_var in f32, checked against the CPU reference.
// GPU-ARGS: --random-inputs=12 --check-against=cpu
graph.graph @rmsnorm_without_scale(%x: tensor<512x4096x1x1xbf16> {graph.name = "X"})
    -> (tensor<512x4096x1x1xbf16> {graph.name = "Y"}, tensor<512x1x1x1xf32> {graph.name = "inv_var"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %sq = graph.pointwise mul(%x, %x) : (tensor<512x4096x1x1xbf16>, tensor<512x4096x1x1xbf16>) -> tensor<512x4096x1x1xf32>
  %ms = graph.reduction avg %sq : (tensor<512x4096x1x1xf32>) -> tensor<512x1x1x1xf32>
  %v = graph.pointwise add(%ms, %eps) : (tensor<512x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<512x1x1x1xf32>
  %iv = graph.pointwise rsqrt(%v) : (tensor<512x1x1x1xf32>) -> tensor<512x1x1x1xf32>
  %y = graph.pointwise mul(%x, %iv) : (tensor<512x4096x1x1xbf16>, tensor<512x1x1x1xf32>) -> tensor<512x4096x1x1xbf16>
  graph.output %y, %iv : tensor<512x4096x1x1xbf16>, tensor<512x1x1x1xf32>
}
