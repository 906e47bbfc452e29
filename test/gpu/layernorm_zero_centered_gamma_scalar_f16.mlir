// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: zcg_scalar/group0: eng
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: the zero-centered-gamma layernorm with the 1 a graph.scalar: cuDNN
// takes gamma + 1.0 and the layernorm as one group, the 1 by value.
// GPU-ARGS: --random-inputs=7 --check-against=cpu
graph.graph @zcg_scalar(%x: tensor<512x768x1x1xf16> {graph.name = "X"},
                        %g: tensor<1x768x1x1xf16> {graph.name = "gamma"},
                        %b: tensor<1x768x1x1xf16> {graph.name = "bias"})
    -> (tensor<512x768x1x1xf16> {graph.name = "Y"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-03 : f32 -> tensor<1x1x1x1xf32>
  %one = graph.scalar 1.0 : f32 -> tensor<1x1x1x1xf32>
  %s = graph.pointwise add(%g, %one) : (tensor<1x768x1x1xf16>, tensor<1x1x1x1xf32>) -> tensor<1x768x1x1xf32>
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %eps : (tensor<512x768x1x1xf16>, tensor<1x768x1x1xf32>, tensor<1x768x1x1xf16>, tensor<1x1x1x1xf32>) -> (tensor<512x768x1x1xf16>, none, none)
  graph.output %y : tensor<512x768x1x1xf16>
}
