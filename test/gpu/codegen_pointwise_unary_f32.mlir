// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=3 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs every unary pointwise mode in
// f32 on a 33x1000 tensor (33 rows: not a multiple of the block), each mode
// its own output so a wrong mode cannot hide behind another: abs, ceil,
// floor (of 4x, exact in f32, so no rounding-boundary flips), cos, sin, tan,
// elu (alpha 0.5), erf, exp, gelu, gelu_approx_tanh, identity, neg,
// sigmoid, softplus (beta 2), swish (beta 1.5), tanh, relu (plain, clipped
// [-0.25, 0.5], with negative_slope), leaky_relu; log, sqrt, rsqrt and
// reciprocal on |x| + 0.5 (a positive domain, no NaN or inf).
// GPU-ARGS: --random-inputs=3 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_unary(%x: tensor<33x1000xf32> {graph.name = "X"})
    -> (tensor<33x1000xf32> {graph.name = "abs"}, tensor<33x1000xf32> {graph.name = "ceil4"},
        tensor<33x1000xf32> {graph.name = "floor4"}, tensor<33x1000xf32> {graph.name = "cos"},
        tensor<33x1000xf32> {graph.name = "sin"}, tensor<33x1000xf32> {graph.name = "tan"},
        tensor<33x1000xf32> {graph.name = "elu"}, tensor<33x1000xf32> {graph.name = "erf"},
        tensor<33x1000xf32> {graph.name = "exp"}, tensor<33x1000xf32> {graph.name = "gelu"},
        tensor<33x1000xf32> {graph.name = "gelu_tanh"}, tensor<33x1000xf32> {graph.name = "identity"},
        tensor<33x1000xf32> {graph.name = "neg"}, tensor<33x1000xf32> {graph.name = "sigmoid"},
        tensor<33x1000xf32> {graph.name = "softplus"}, tensor<33x1000xf32> {graph.name = "swish"},
        tensor<33x1000xf32> {graph.name = "tanh"}, tensor<33x1000xf32> {graph.name = "relu"},
        tensor<33x1000xf32> {graph.name = "relu_clipped"}, tensor<33x1000xf32> {graph.name = "relu_slope"},
        tensor<33x1000xf32> {graph.name = "leaky_relu"}, tensor<33x1000xf32> {graph.name = "log"},
        tensor<33x1000xf32> {graph.name = "sqrt"}, tensor<33x1000xf32> {graph.name = "rsqrt"},
        tensor<33x1000xf32> {graph.name = "reciprocal"})
    attributes {compute_data_type = f32} {
  %four = graph.scalar 4.0 : f32 -> tensor<1x1xf32>
  %half = graph.scalar 0.5 : f32 -> tensor<1x1xf32>
  %abs = graph.pointwise abs(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %x4 = graph.pointwise mul(%x, %four) : (tensor<33x1000xf32>, tensor<1x1xf32>) -> tensor<33x1000xf32>
  %ceil = graph.pointwise ceil(%x4) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %floor = graph.pointwise floor(%x4) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %cos = graph.pointwise cos(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %sin = graph.pointwise sin(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %tan = graph.pointwise tan(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %elu = graph.pointwise elu(%x) {elu_alpha = 0.5 : f64} : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %erf = graph.pointwise erf(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %exp = graph.pointwise exp(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %gelu = graph.pointwise gelu(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %gelu_tanh = graph.pointwise gelu_approx_tanh(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %identity = graph.pointwise identity(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %neg = graph.pointwise neg(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %sigmoid = graph.pointwise sigmoid(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %softplus = graph.pointwise softplus(%x) {softplus_beta = 2.0 : f64} : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %swish = graph.pointwise swish(%x) {swish_beta = 1.5 : f64} : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %tanh = graph.pointwise tanh(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %relu = graph.pointwise relu(%x) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %relu_c = graph.pointwise relu(%x) {lower_clip = -0.25 : f64, upper_clip = 0.5 : f64} : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %relu_s = graph.pointwise relu(%x) {negative_slope = 0.1 : f64} : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %leaky = graph.pointwise leaky_relu(%x) {negative_slope = 0.01 : f64} : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %pos = graph.pointwise add(%abs, %half) : (tensor<33x1000xf32>, tensor<1x1xf32>) -> tensor<33x1000xf32>
  %log = graph.pointwise log(%pos) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %sqrt = graph.pointwise sqrt(%pos) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %rsqrt = graph.pointwise rsqrt(%pos) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  %recip = graph.pointwise reciprocal(%pos) : (tensor<33x1000xf32>) -> tensor<33x1000xf32>
  graph.output %abs, %ceil, %floor, %cos, %sin, %tan, %elu, %erf, %exp, %gelu, %gelu_tanh, %identity, %neg, %sigmoid, %softplus, %swish, %tanh, %relu, %relu_c, %relu_s, %leaky, %log, %sqrt, %rsqrt, %recip
      : tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>, tensor<33x1000xf32>
}
