// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=11 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs rmsnorm: training forward (Y
// and inv_var) on f32 40x1000 rows and on bf16 96x768x1x1 (the cuDNN
// frontend's [N, C, 1, 1] form, f32 scale), inference with a bias on f16
// 33x520 (odd row count, f16 scale and bias) and without one on the bf16
// data; backward from the saved inv_var: f32 with dbias (dX, dscale, dbias)
// and bf16 without (dX, dscale), where dscale and dbias reduce over rows.
// GPU-ARGS: --random-inputs=11 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_rmsnorm(%x: tensor<40x1000xf32> {graph.name = "X32"},
                             %g: tensor<1x1000xf32> {graph.name = "scale32"},
                             %dy: tensor<40x1000xf32> {graph.name = "dY32"},
                             %xb: tensor<96x768x1x1xbf16> {graph.name = "Xbf16"},
                             %gb: tensor<1x768x1x1xf32> {graph.name = "scale_bf16"},
                             %dyb: tensor<96x768x1x1xbf16> {graph.name = "dYbf16"},
                             %xh: tensor<33x520xf16> {graph.name = "Xf16"},
                             %gh: tensor<1x520xf16> {graph.name = "scale_f16"},
                             %bh: tensor<1x520xf16> {graph.name = "bias_f16"})
    -> (tensor<40x1000xf32> {graph.name = "Y32"}, tensor<40x1xf32> {graph.name = "inv_var32"},
        tensor<96x768x1x1xbf16> {graph.name = "Ybf16"}, tensor<96x1x1x1xf32> {graph.name = "inv_var_bf16"},
        tensor<33x520xf16> {graph.name = "Yf16_inference_bias"}, tensor<96x768x1x1xbf16> {graph.name = "Ybf16_inference"},
        tensor<40x1000xf32> {graph.name = "dX32"}, tensor<1x1000xf32> {graph.name = "dscale32"},
        tensor<1x1000xf32> {graph.name = "dbias32"}, tensor<96x768x1x1xbf16> {graph.name = "dXbf16"},
        tensor<1x768x1x1xf32> {graph.name = "dscale_bf16"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %eps4 = graph.scalar 1.0e-06 : f32 -> tensor<1x1x1x1xf32>
  %y, %iv = graph.rmsnorm training %x, scale %g, epsilon %eps : (tensor<40x1000xf32>, tensor<1x1000xf32>, tensor<1x1xf32>) -> (tensor<40x1000xf32>, tensor<40x1xf32>)
  %yb, %ivb = graph.rmsnorm training %xb, scale %gb, epsilon %eps4 : (tensor<96x768x1x1xbf16>, tensor<1x768x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<96x768x1x1xbf16>, tensor<96x1x1x1xf32>)
  %yh = graph.rmsnorm inference %xh, scale %gh, bias %bh, epsilon %eps : (tensor<33x520xf16>, tensor<1x520xf16>, tensor<1x520xf16>, tensor<1x1xf32>) -> tensor<33x520xf16>
  %ybi = graph.rmsnorm inference %xb, scale %gb, epsilon %eps4 : (tensor<96x768x1x1xbf16>, tensor<1x768x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<96x768x1x1xbf16>
  %dx, %ds, %db = graph.rmsnorm_backward %dy, %x, scale %g, inv_variance %iv : (tensor<40x1000xf32>, tensor<40x1000xf32>, tensor<1x1000xf32>, tensor<40x1xf32>) -> (tensor<40x1000xf32>, tensor<1x1000xf32>, tensor<1x1000xf32>)
  %dxb, %dsb = graph.rmsnorm_backward %dyb, %xb, scale %gb, inv_variance %ivb {has_dbias = false} : (tensor<96x768x1x1xbf16>, tensor<96x768x1x1xbf16>, tensor<1x768x1x1xf32>, tensor<96x1x1x1xf32>) -> (tensor<96x768x1x1xbf16>, tensor<1x768x1x1xf32>)
  graph.output %y, %iv, %yb, %ivb, %yh, %ybi, %dx, %ds, %db, %dxb, %dsb
      : tensor<40x1000xf32>, tensor<40x1xf32>, tensor<96x768x1x1xbf16>, tensor<96x1x1x1xf32>, tensor<33x520xf16>, tensor<96x768x1x1xbf16>, tensor<40x1000xf32>, tensor<1x1000xf32>, tensor<1x1000xf32>, tensor<96x768x1x1xbf16>, tensor<1x768x1x1xf32>
}
