// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=6 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: rmsnorm training forward and backward (no bias).
// GPU-ARGS: --random-inputs=6 --check-against=cpu
graph.graph @rmsnorm(%x: tensor<32x512x1x1xf32> {graph.name = "X"},
                     %g: tensor<1x512x1x1xf32> {graph.name = "scale"},
                     %dy: tensor<32x512x1x1xf32> {graph.name = "dY"})
    -> (tensor<32x512x1x1xf32> {graph.name = "Y"}, tensor<32x1x1x1xf32> {graph.name = "inv_var"},
        tensor<32x512x1x1xf32> {graph.name = "dX"}, tensor<1x512x1x1xf32> {graph.name = "dscale"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %y, %iv = graph.rmsnorm training %x, scale %g, epsilon %eps : (tensor<32x512x1x1xf32>, tensor<1x512x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<32x512x1x1xf32>, tensor<32x1x1x1xf32>)
  %dx, %ds = graph.rmsnorm_backward %dy, %x, scale %g, inv_variance %iv {has_dbias = false} : (tensor<32x512x1x1xf32>, tensor<32x512x1x1xf32>, tensor<1x512x1x1xf32>, tensor<32x1x1x1xf32>) -> (tensor<32x512x1x1xf32>, tensor<1x512x1x1xf32>)
  graph.output %y, %iv, %dx, %ds : tensor<32x512x1x1xf32>, tensor<32x1x1x1xf32>, tensor<32x512x1x1xf32>, tensor<1x512x1x1xf32>
}
