// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: zcg/group0: codegen
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: the frontend's zero-centered-gamma layernorm (samples 29 and 30):
// scale = gamma + one feeds the layernorm. `one` is a graph.by_value input
// (the frontend's pass-by-value CPU tensor) holding a random value here:
// cuDNN 9.19's norm engines fuse the add only for the constant 1.0 (another
// value fails at execute with BAD_PARAM, measured on the H200), so cuDNN
// declines and the generated kernels take the group. The constant case is
// layernorm_zero_centered_gamma_scalar_f16.mlir.
// GPU-ARGS: --random-inputs=7 --check-against=cpu
graph.graph @zcg(%x: tensor<512x768x1x1xf16> {graph.name = "X"},
                 %g: tensor<1x768x1x1xf16> {graph.name = "gamma"},
                 %one: tensor<1x1x1x1xf32> {graph.by_value, graph.name = "one"},
                 %b: tensor<1x768x1x1xf16> {graph.name = "bias"})
    -> (tensor<512x768x1x1xf16> {graph.name = "Y"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-03 : f32 -> tensor<1x1x1x1xf32>
  %s = graph.pointwise add(%g, %one) : (tensor<1x768x1x1xf16>, tensor<1x1x1x1xf32>) -> tensor<1x768x1x1xf32>
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %eps : (tensor<512x768x1x1xf16>, tensor<1x768x1x1xf32>, tensor<1x768x1x1xf16>, tensor<1x1x1x1xf32>) -> (tensor<512x768x1x1xf16>, none, none)
  graph.output %y : tensor<512x768x1x1xf16>
}
