// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: layernorm training forward and backward, bf16 data, f32 statistics.
// GPU-ARGS: --random-inputs=5 --check-against=cpu
graph.graph @layernorm(%x: tensor<64x1024x1x1xbf16> {graph.name = "X"},
                       %g: tensor<1x1024x1x1xf32> {graph.name = "scale"},
                       %b: tensor<1x1024x1x1xf32> {graph.name = "bias"},
                       %dy: tensor<64x1024x1x1xbf16> {graph.name = "dY"})
    -> (tensor<64x1024x1x1xbf16> {graph.name = "Y"}, tensor<64x1x1x1xf32> {graph.name = "mean"},
        tensor<64x1x1x1xf32> {graph.name = "inv_var"}, tensor<64x1024x1x1xbf16> {graph.name = "dX"},
        tensor<1x1024x1x1xf32> {graph.name = "dscale"}, tensor<1x1024x1x1xf32> {graph.name = "dbias"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %y, %m, %iv = graph.layernorm training %x, scale %g, bias %b, epsilon %eps : (tensor<64x1024x1x1xbf16>, tensor<1x1024x1x1xf32>, tensor<1x1024x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<64x1024x1x1xbf16>, tensor<64x1x1x1xf32>, tensor<64x1x1x1xf32>)
  %dx, %ds, %db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<64x1024x1x1xbf16>, tensor<64x1024x1x1xbf16>, tensor<1x1024x1x1xf32>, tensor<64x1x1x1xf32>, tensor<64x1x1x1xf32>) -> (tensor<64x1024x1x1xbf16>, tensor<1x1024x1x1xf32>, tensor<1x1024x1x1xf32>)
  graph.output %y, %m, %iv, %dx, %ds, %db : tensor<64x1024x1x1xbf16>, tensor<64x1x1x1xf32>, tensor<64x1x1x1xf32>, tensor<64x1024x1x1xbf16>, tensor<1x1024x1x1xf32>, tensor<1x1024x1x1xf32>
}
