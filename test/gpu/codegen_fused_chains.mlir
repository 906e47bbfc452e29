// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=15 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs the fused chains of a
// transformer block: residual add + rmsnorm + scale (bf16 64x1024: h = x + r
// written back as the new residual stream, rmsnorm inference of h with an
// f32 weight, times a per-channel scale, bf16 out; and the f32 variant on
// 33x640 in training, also writing inv_var); bias + gelu (bf16 128x768 with
// a bf16 bias) and bias + gelu_approx_tanh (f16 50x1000, f32 bias, f16 out);
// and the benchmark's 4-op chain x * s + b -> gelu -> tanh -> bf16.
// GPU-ARGS: --random-inputs=15 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_fused(%x: tensor<64x1024xbf16> {graph.name = "X"},
                           %r: tensor<64x1024xbf16> {graph.name = "residual"},
                           %w: tensor<1x1024xf32> {graph.name = "norm_weight"},
                           %s: tensor<1x1024xbf16> {graph.name = "out_scale"},
                           %x32: tensor<33x640xf32> {graph.name = "X32"},
                           %r32: tensor<33x640xf32> {graph.name = "residual32"},
                           %w32: tensor<1x640xf32> {graph.name = "norm_weight32"},
                           %a: tensor<128x768xbf16> {graph.name = "A"},
                           %ab: tensor<1x768xbf16> {graph.name = "A_bias"},
                           %c: tensor<50x1000xf16> {graph.name = "C"},
                           %cb: tensor<1x1000xf32> {graph.name = "C_bias"},
                           %q: tensor<8x100x250xbf16> {graph.name = "Q"},
                           %qs: tensor<1x1x250xbf16> {graph.name = "Q_scale"},
                           %qb: tensor<1x1x250xbf16> {graph.name = "Q_bias"})
    -> (tensor<64x1024xbf16> {graph.name = "h"}, tensor<64x1024xbf16> {graph.name = "normed_scaled"},
        tensor<33x640xf32> {graph.name = "h32"}, tensor<33x640xf32> {graph.name = "normed_scaled32"},
        tensor<33x1xf32> {graph.name = "inv_var32"}, tensor<128x768xbf16> {graph.name = "bias_gelu"},
        tensor<50x1000xf16> {graph.name = "bias_gelu_tanh"}, tensor<8x100x250xbf16> {graph.name = "chain4"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-06 : f32 -> tensor<1x1xf32>
  %half = graph.scalar 0.5 : f32 -> tensor<1x1xf32>
  %h = graph.pointwise add(%x, %r) : (tensor<64x1024xbf16>, tensor<64x1024xbf16>) -> tensor<64x1024xbf16>
  %n = graph.rmsnorm inference %h, scale %w, epsilon %eps : (tensor<64x1024xbf16>, tensor<1x1024xf32>, tensor<1x1xf32>) -> tensor<64x1024xf32>
  %ns = graph.pointwise mul(%n, %s) : (tensor<64x1024xf32>, tensor<1x1024xbf16>) -> tensor<64x1024xbf16>
  %h32 = graph.pointwise add(%x32, %r32) : (tensor<33x640xf32>, tensor<33x640xf32>) -> tensor<33x640xf32>
  %n32, %iv32 = graph.rmsnorm training %h32, scale %w32, epsilon %eps : (tensor<33x640xf32>, tensor<1x640xf32>, tensor<1x1xf32>) -> (tensor<33x640xf32>, tensor<33x1xf32>)
  %ns32 = graph.pointwise mul(%n32, %half) : (tensor<33x640xf32>, tensor<1x1xf32>) -> tensor<33x640xf32>
  %ba = graph.pointwise add(%a, %ab) : (tensor<128x768xbf16>, tensor<1x768xbf16>) -> tensor<128x768xf32>
  %ga = graph.pointwise gelu(%ba) : (tensor<128x768xf32>) -> tensor<128x768xbf16>
  %bc = graph.pointwise bias(%c, %cb) : (tensor<50x1000xf16>, tensor<1x1000xf32>) -> tensor<50x1000xf32>
  %gc = graph.pointwise gelu_approx_tanh(%bc) : (tensor<50x1000xf32>) -> tensor<50x1000xf16>
  %q0 = graph.pointwise mul(%q, %qs) : (tensor<8x100x250xbf16>, tensor<1x1x250xbf16>) -> tensor<8x100x250xf32>
  %q1 = graph.pointwise add(%q0, %qb) : (tensor<8x100x250xf32>, tensor<1x1x250xbf16>) -> tensor<8x100x250xf32>
  %q2 = graph.pointwise gelu(%q1) : (tensor<8x100x250xf32>) -> tensor<8x100x250xf32>
  %q3 = graph.pointwise tanh(%q2) : (tensor<8x100x250xf32>) -> tensor<8x100x250xbf16>
  graph.output %h, %ns, %h32, %ns32, %iv32, %ga, %gc, %q3
      : tensor<64x1024xbf16>, tensor<64x1024xbf16>, tensor<33x640xf32>, tensor<33x640xf32>, tensor<33x1xf32>, tensor<128x768xbf16>, tensor<50x1000xf16>, tensor<8x100x250xbf16>
}
