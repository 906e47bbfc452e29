// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=13 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs the other norms: batchnorm
// inference (per-channel mean, inv_var, scale, bias) on f16 NCHW 8x32x9x9
// and on bf16 NHWC (channels-last strides); instancenorm training (Y, mean,
// inv_var per (n, c)) on f32 4x24x10x10 and inference on f16; adalayernorm
// (per-sample scale and bias [B, 1, D]) training on bf16 2x16x256 (each
// (b, s) row normalized over D) and inference; genstats (per-channel sum and
// sum of squares over N, H, W) of f16 NCHW data.
// GPU-ARGS: --random-inputs=13 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_norms_misc(%xh: tensor<8x32x9x9xf16> {graph.name = "X_nchw_f16"},
                                %xl: tensor<8x32x9x9xbf16, #graph.strides<[2592, 1, 288, 32]>> {graph.name = "X_nhwc_bf16"},
                                %mean: tensor<1x32x1x1xf32> {graph.name = "bn_mean"},
                                %iv: tensor<1x32x1x1xf32> {graph.name = "bn_inv_var"},
                                %g: tensor<1x32x1x1xf32> {graph.name = "bn_scale"},
                                %b: tensor<1x32x1x1xf32> {graph.name = "bn_bias"},
                                %xi: tensor<4x24x10x10xf32> {graph.name = "X_in_f32"},
                                %xih: tensor<4x24x10x10xf16> {graph.name = "X_in_f16"},
                                %gi: tensor<1x24x1x1xf32> {graph.name = "in_scale"},
                                %bi: tensor<1x24x1x1xf32> {graph.name = "in_bias"},
                                %xa: tensor<2x16x256xbf16> {graph.name = "X_ada"},
                                %ga: tensor<2x1x256xf32> {graph.name = "ada_scale"},
                                %ba: tensor<2x1x256xf32> {graph.name = "ada_bias"})
    -> (tensor<8x32x9x9xf16> {graph.name = "bn_Y_f16"}, tensor<8x32x9x9xbf16, #graph.strides<[2592, 1, 288, 32]>> {graph.name = "bn_Y_nhwc"},
        tensor<4x24x10x10xf32> {graph.name = "in_Y"}, tensor<4x24x1x1xf32> {graph.name = "in_mean"},
        tensor<4x24x1x1xf32> {graph.name = "in_inv_var"}, tensor<4x24x10x10xf16> {graph.name = "in_Y_inference"},
        tensor<2x16x256xbf16> {graph.name = "ada_Y"}, tensor<2x16x1xf32> {graph.name = "ada_mean"},
        tensor<2x16x1xf32> {graph.name = "ada_inv_var"}, tensor<2x16x256xbf16> {graph.name = "ada_Y_inference"},
        tensor<1x32x1x1xf32> {graph.name = "gs_sum"}, tensor<1x32x1x1xf32> {graph.name = "gs_sq_sum"})
    attributes {compute_data_type = f32} {
  %eps3 = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1xf32>
  %eps4 = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %bny = graph.batchnorm_inference %xh, mean %mean, inv_variance %iv, scale %g, bias %b : (tensor<8x32x9x9xf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<8x32x9x9xf16>
  %bnl = graph.batchnorm_inference %xl, mean %mean, inv_variance %iv, scale %g, bias %b : (tensor<8x32x9x9xbf16, #graph.strides<[2592, 1, 288, 32]>>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<8x32x9x9xbf16, #graph.strides<[2592, 1, 288, 32]>>
  %iny, %inm, %iniv = graph.instancenorm training %xi, scale %gi, bias %bi, epsilon %eps4 : (tensor<4x24x10x10xf32>, tensor<1x24x1x1xf32>, tensor<1x24x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x24x10x10xf32>, tensor<4x24x1x1xf32>, tensor<4x24x1x1xf32>)
  %inyi = graph.instancenorm inference %xih, scale %gi, bias %bi, epsilon %eps4 : (tensor<4x24x10x10xf16>, tensor<1x24x1x1xf32>, tensor<1x24x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x24x10x10xf16>, none, none)
  %ay, %am, %aiv = graph.adalayernorm training %xa, scale %ga, bias %ba, epsilon %eps3 : (tensor<2x16x256xbf16>, tensor<2x1x256xf32>, tensor<2x1x256xf32>, tensor<1x1x1xf32>) -> (tensor<2x16x256xbf16>, tensor<2x16x1xf32>, tensor<2x16x1xf32>)
  %ayi = graph.adalayernorm inference %xa, scale %ga, bias %ba, epsilon %eps3 : (tensor<2x16x256xbf16>, tensor<2x1x256xf32>, tensor<2x1x256xf32>, tensor<1x1x1xf32>) -> (tensor<2x16x256xbf16>, none, none)
  %s, %sq = graph.genstats %xh : (tensor<8x32x9x9xf16>) -> (tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>)
  graph.output %bny, %bnl, %iny, %inm, %iniv, %inyi, %ay, %am, %aiv, %ayi, %s, %sq
      : tensor<8x32x9x9xf16>, tensor<8x32x9x9xbf16, #graph.strides<[2592, 1, 288, 32]>>, tensor<4x24x10x10xf32>, tensor<4x24x1x1xf32>, tensor<4x24x1x1xf32>, tensor<4x24x10x10xf16>, tensor<2x16x256xbf16>, tensor<2x16x1xf32>, tensor<2x16x1xf32>, tensor<2x16x256xbf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>
}
