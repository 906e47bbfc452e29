// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: batchnorm training with running statistics, then relu; and batchnorm inference.
// GPU-ARGS: --random-inputs=7 --check-against=cpu
graph.graph @batchnorm(%x: tensor<8x32x16x16xf16> {graph.name = "X"},
                       %g: tensor<1x32x1x1xf32> {graph.name = "scale"},
                       %b: tensor<1x32x1x1xf32> {graph.name = "bias"},
                       %rm: tensor<1x32x1x1xf32> {graph.name = "running_mean"},
                       %rv: tensor<1x32x1x1xf32> {graph.name = "running_var"},
                       %m2: tensor<1x32x1x1xf32> {graph.name = "mean_in"},
                       %iv2: tensor<1x32x1x1xf32> {graph.name = "inv_var_in"})
    -> (tensor<8x32x16x16xf16> {graph.name = "Y"}, tensor<1x32x1x1xf32> {graph.name = "mean"},
        tensor<1x32x1x1xf32> {graph.name = "inv_var"}, tensor<1x32x1x1xf32> {graph.name = "next_mean"},
        tensor<1x32x1x1xf32> {graph.name = "next_var"}, tensor<8x32x16x16xf16> {graph.name = "Y_inference"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %mom = graph.scalar 1.0e-01 : f32 -> tensor<1x1x1x1xf32>
  %y, %m, %iv, %nm, %nv = graph.batchnorm %x, scale %g, bias %b, epsilon %eps running_mean %rm running_var %rv momentum %mom : (tensor<8x32x16x16xf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<8x32x16x16xf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>)
  %r = graph.pointwise relu(%y) : (tensor<8x32x16x16xf16>) -> tensor<8x32x16x16xf16>
  %yi = graph.batchnorm_inference %x, mean %m2, inv_variance %iv2, scale %g, bias %b : (tensor<8x32x16x16xf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<8x32x16x16xf16>
  graph.output %r, %m, %iv, %nm, %nv, %yi : tensor<8x32x16x16xf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<8x32x16x16xf16>
}
