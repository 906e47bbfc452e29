// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: an rmsnorm training whose inv_variance is f16, as the frontend's
// test_rmsnorm asks for it (the torch dtype of its reference): cuDNN 9.19's
// norm forward left a HALF inv_variance unwritten (NaN) on the H200, so the
// cuDNN engine declines it and the generated kernels run it.
// GPU-ARGS: --random-inputs=5 --check-against=cpu
graph.graph @rmsnorm_half_stats_f16(
    %x: tensor<2048x768x1x1xf16> {graph.name = "X"},
    %s: tensor<1x768x1x1xf16> {graph.name = "scale"},
    %b: tensor<1x768x1x1xf16> {graph.name = "bias"})
    -> (tensor<2048x768x1x1xf16> {graph.name = "Y"}, tensor<2048x1x1x1xf16> {graph.name = "inv_var"})
    attributes {intermediate_data_type = f32, compute_data_type = f32} {
  %eps = graph.scalar 1.0e-03 : f32 -> tensor<1x1x1x1xf32>
  %y, %iv = graph.rmsnorm training %x, scale %s, bias %b, epsilon %eps {name = "RMS"}
      : (tensor<2048x768x1x1xf16>, tensor<1x768x1x1xf16>, tensor<1x768x1x1xf16>, tensor<1x1x1x1xf32>)
        -> (tensor<2048x768x1x1xf16>, tensor<2048x1x1x1xf16>)
  graph.output %y, %iv : tensor<2048x768x1x1xf16>, tensor<2048x1x1x1xf16>
}
