// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: the backward of rmsnorm_half_stats_f16 (the frontend's test_rmsnorm
// feeds its forward's HALF inv_variance to rmsnorm_backward): cuDNN 9.19's
// norm backward gave dX wrong on the H200, so the cuDNN engine declines it
// and the generated kernels run it.
// GPU-ARGS: --random-inputs=5 --check-against=cpu
graph.graph @rmsnorm_backward_half_stats_f16(
    %dy: tensor<2048x768x1x1xf16> {graph.name = "dY"},
    %x: tensor<2048x768x1x1xf16> {graph.name = "X"},
    %s: tensor<1x768x1x1xf16> {graph.name = "scale"},
    %iv: tensor<2048x1x1x1xf16> {graph.name = "inv_var"})
    -> (tensor<2048x768x1x1xf16> {graph.name = "dX"}, tensor<1x768x1x1xf16> {graph.name = "dScale"},
        tensor<1x768x1x1xf16> {graph.name = "dBias"})
    attributes {intermediate_data_type = f32, compute_data_type = f32} {
  %dx, %ds, %db = graph.rmsnorm_backward %dy, %x, scale %s, inv_variance %iv {name = "DRMS"}
      : (tensor<2048x768x1x1xf16>, tensor<2048x768x1x1xf16>, tensor<1x768x1x1xf16>, tensor<2048x1x1x1xf16>)
        -> (tensor<2048x768x1x1xf16>, tensor<1x768x1x1xf16>, tensor<1x768x1x1xf16>)
  graph.output %dx, %ds, %db : tensor<2048x768x1x1xf16>, tensor<1x768x1x1xf16>, tensor<1x768x1x1xf16>
}
