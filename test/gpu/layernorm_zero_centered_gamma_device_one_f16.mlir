// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: zcg_device/group0: codegen
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: the zero-centered-gamma layernorm with `one` a device tensor: every
// cuDNN 9.19 plan tried for this fused group segfaulted on the H200, so the
// cuDNN engine declines it and the generated kernels run the group.
// GPU-ARGS: --random-inputs=7 --check-against=cpu
graph.graph @zcg_device(%x: tensor<512x768x1x1xf16> {graph.name = "X"},
                 %g: tensor<1x768x1x1xf16> {graph.name = "gamma"},
                 %one: tensor<1x1x1x1xf32> {graph.name = "one"},
                 %b: tensor<1x768x1x1xf16> {graph.name = "bias"})
    -> (tensor<512x768x1x1xf16> {graph.name = "Y"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-03 : f32 -> tensor<1x1x1x1xf32>
  %s = graph.pointwise add(%g, %one) : (tensor<1x768x1x1xf16>, tensor<1x1x1x1xf32>) -> tensor<1x768x1x1xf32>
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %eps : (tensor<512x768x1x1xf16>, tensor<1x768x1x1xf32>, tensor<1x768x1x1xf16>, tensor<1x1x1x1xf32>) -> (tensor<512x768x1x1xf16>, none, none)
  graph.output %y : tensor<512x768x1x1xf16>
}
