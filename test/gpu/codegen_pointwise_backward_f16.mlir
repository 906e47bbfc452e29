// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=6 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs every backward pointwise mode,
// (loss, input) order, on f16 data 24x520 with f16 and f32 results:
// relu_backward (plain and clipped with a slope), leaky_relu_backward,
// swish_backward, elu_backward, gelu_backward, gelu_approx_tanh_backward,
// sigmoid_backward, softplus_backward, tanh_backward; plus a relu_backward
// whose loss broadcasts from a [1, 520] row and a bf16 activation chain
// (gelu forward of the input times its backward).
// GPU-ARGS: --random-inputs=6 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_backward(%dy: tensor<24x520xf16> {graph.name = "dY"},
                              %x: tensor<24x520xf16> {graph.name = "X"},
                              %dyrow: tensor<1x520xf16> {graph.name = "dY_row"})
    -> (tensor<24x520xf16> {graph.name = "relu_bwd"}, tensor<24x520xf32> {graph.name = "relu_bwd_clipped"},
        tensor<24x520xf16> {graph.name = "leaky_relu_bwd"}, tensor<24x520xf32> {graph.name = "swish_bwd"},
        tensor<24x520xf16> {graph.name = "elu_bwd"}, tensor<24x520xf32> {graph.name = "gelu_bwd"},
        tensor<24x520xf16> {graph.name = "gelu_tanh_bwd"}, tensor<24x520xf32> {graph.name = "sigmoid_bwd"},
        tensor<24x520xf16> {graph.name = "softplus_bwd"}, tensor<24x520xf32> {graph.name = "tanh_bwd"},
        tensor<24x520xf16> {graph.name = "relu_bwd_row"}, tensor<24x520xbf16> {graph.name = "gelu_fwd_bwd"})
    attributes {compute_data_type = f32} {
  %relu = graph.pointwise relu_backward(%dy, %x) : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf16>
  %reluc = graph.pointwise relu_backward(%dy, %x) {lower_clip = -0.5 : f64, upper_clip = 0.75 : f64, negative_slope = 0.2 : f64} : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf32>
  %leaky = graph.pointwise leaky_relu_backward(%dy, %x) {negative_slope = 0.05 : f64} : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf16>
  %swish = graph.pointwise swish_backward(%dy, %x) {swish_beta = 1.25 : f64} : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf32>
  %elu = graph.pointwise elu_backward(%dy, %x) {elu_alpha = 0.75 : f64} : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf16>
  %gelu = graph.pointwise gelu_backward(%dy, %x) : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf32>
  %gelut = graph.pointwise gelu_approx_tanh_backward(%dy, %x) : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf16>
  %sig = graph.pointwise sigmoid_backward(%dy, %x) : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf32>
  %softplus = graph.pointwise softplus_backward(%dy, %x) {softplus_beta = 0.5 : f64} : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf16>
  %tanh = graph.pointwise tanh_backward(%dy, %x) : (tensor<24x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf32>
  %relurow = graph.pointwise relu_backward(%dyrow, %x) : (tensor<1x520xf16>, tensor<24x520xf16>) -> tensor<24x520xf16>
  %g = graph.pointwise gelu(%x) : (tensor<24x520xf16>) -> tensor<24x520xf32>
  %gb = graph.pointwise gelu_backward(%g, %x) : (tensor<24x520xf32>, tensor<24x520xf16>) -> tensor<24x520xbf16>
  graph.output %relu, %reluc, %leaky, %swish, %elu, %gelu, %gelut, %sig, %softplus, %tanh, %relurow, %gb
      : tensor<24x520xf16>, tensor<24x520xf32>, tensor<24x520xf16>, tensor<24x520xf32>, tensor<24x520xf16>, tensor<24x520xf32>, tensor<24x520xf16>, tensor<24x520xf32>, tensor<24x520xf16>, tensor<24x520xf32>, tensor<24x520xf16>, tensor<24x520xbf16>
}
