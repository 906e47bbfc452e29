// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=12 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs layernorm: training forward (Y,
// mean, inv_var) on f32 24x1000 rows and on f16 50x2x100 (each sample
// normalized over two dims, a [1, 2, 100] f16 scale and bias); inference on
// bf16 64x512x1x1 with f32 scale and bias and on the f16 data; backward from
// the saved statistics in f32 (dX, dscale, dbias) and in f16 (dX f16,
// dscale and dbias f32), where dscale and dbias reduce over samples.
// GPU-ARGS: --random-inputs=12 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_layernorm(%x: tensor<24x1000xf32> {graph.name = "X32"},
                               %g: tensor<1x1000xf32> {graph.name = "scale32"},
                               %b: tensor<1x1000xf32> {graph.name = "bias32"},
                               %dy: tensor<24x1000xf32> {graph.name = "dY32"},
                               %xh: tensor<50x2x100xf16> {graph.name = "Xf16"},
                               %gh: tensor<1x2x100xf16> {graph.name = "scale_f16"},
                               %bh: tensor<1x2x100xf16> {graph.name = "bias_f16"},
                               %dyh: tensor<50x2x100xf16> {graph.name = "dYf16"},
                               %xb: tensor<64x512x1x1xbf16> {graph.name = "Xbf16"},
                               %gb: tensor<1x512x1x1xf32> {graph.name = "scale_bf16"},
                               %bb: tensor<1x512x1x1xf32> {graph.name = "bias_bf16"})
    -> (tensor<24x1000xf32> {graph.name = "Y32"}, tensor<24x1xf32> {graph.name = "mean32"},
        tensor<24x1xf32> {graph.name = "inv_var32"}, tensor<50x2x100xf16> {graph.name = "Yf16"},
        tensor<50x1x1xf32> {graph.name = "mean_f16"}, tensor<50x1x1xf32> {graph.name = "inv_var_f16"},
        tensor<64x512x1x1xbf16> {graph.name = "Ybf16_inference"}, tensor<50x2x100xf16> {graph.name = "Yf16_inference"},
        tensor<24x1000xf32> {graph.name = "dX32"}, tensor<1x1000xf32> {graph.name = "dscale32"},
        tensor<1x1000xf32> {graph.name = "dbias32"}, tensor<50x2x100xf16> {graph.name = "dXf16"},
        tensor<1x2x100xf32> {graph.name = "dscale_f16"}, tensor<1x2x100xf32> {graph.name = "dbias_f16"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %eps3 = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1xf32>
  %eps4 = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %y, %m, %iv = graph.layernorm training %x, scale %g, bias %b, epsilon %eps : (tensor<24x1000xf32>, tensor<1x1000xf32>, tensor<1x1000xf32>, tensor<1x1xf32>) -> (tensor<24x1000xf32>, tensor<24x1xf32>, tensor<24x1xf32>)
  %yh, %mh, %ivh = graph.layernorm training %xh, scale %gh, bias %bh, epsilon %eps3 : (tensor<50x2x100xf16>, tensor<1x2x100xf16>, tensor<1x2x100xf16>, tensor<1x1x1xf32>) -> (tensor<50x2x100xf16>, tensor<50x1x1xf32>, tensor<50x1x1xf32>)
  %yb = graph.layernorm inference %xb, scale %gb, bias %bb, epsilon %eps4 : (tensor<64x512x1x1xbf16>, tensor<1x512x1x1xf32>, tensor<1x512x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<64x512x1x1xbf16>, none, none)
  %yhi = graph.layernorm inference %xh, scale %gh, bias %bh, epsilon %eps3 : (tensor<50x2x100xf16>, tensor<1x2x100xf16>, tensor<1x2x100xf16>, tensor<1x1x1xf32>) -> (tensor<50x2x100xf16>, none, none)
  %dx, %ds, %db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<24x1000xf32>, tensor<24x1000xf32>, tensor<1x1000xf32>, tensor<24x1xf32>, tensor<24x1xf32>) -> (tensor<24x1000xf32>, tensor<1x1000xf32>, tensor<1x1000xf32>)
  %dxh, %dsh, %dbh = graph.layernorm_backward %dyh, %xh, scale %gh, mean %mh, inv_variance %ivh : (tensor<50x2x100xf16>, tensor<50x2x100xf16>, tensor<1x2x100xf16>, tensor<50x1x1xf32>, tensor<50x1x1xf32>) -> (tensor<50x2x100xf16>, tensor<1x2x100xf32>, tensor<1x2x100xf32>)
  graph.output %y, %m, %iv, %yh, %mh, %ivh, %yb, %yhi, %dx, %ds, %db, %dxh, %dsh, %dbh
      : tensor<24x1000xf32>, tensor<24x1xf32>, tensor<24x1xf32>, tensor<50x2x100xf16>, tensor<50x1x1xf32>, tensor<50x1x1xf32>, tensor<64x512x1x1xbf16>, tensor<50x2x100xf16>, tensor<24x1000xf32>, tensor<1x1000xf32>, tensor<1x1000xf32>, tensor<50x2x100xf16>, tensor<1x2x100xf32>, tensor<1x2x100xf32>
}
