// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected. Backward norms on 16384-wide bf16 rows: the
// per-column sums (DScale, DBias) would not fit in registers next to the
// row at 1024 threads, so codegen_v2 sums them in a separate column pass
// (16-byte loads, row chunks over grid y, partials + a finishing kernel);
// plus the forward norms on the same rows.
// GPU-ARGS: --random-inputs=5 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_norms_wide(%dy: tensor<64x16384xbf16> {graph.name = "dY"},
                                %x: tensor<64x16384xbf16> {graph.name = "X"},
                                %g: tensor<1x16384xbf16> {graph.name = "scale"},
                                %b: tensor<1x16384xbf16> {graph.name = "bias"})
    -> (tensor<64x16384xbf16> {graph.name = "Y"}, tensor<64x1xf32> {graph.name = "mean"},
        tensor<64x1xf32> {graph.name = "inv_var"},
        tensor<64x16384xbf16> {graph.name = "dX"}, tensor<1x16384xf32> {graph.name = "dscale"},
        tensor<1x16384xf32> {graph.name = "dbias"},
        tensor<64x16384xbf16> {graph.name = "dX_rms"}, tensor<1x16384xf32> {graph.name = "dscale_rms"})
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y, %m, %iv = graph.layernorm training %x, scale %g, bias %b, epsilon %eps : (tensor<64x16384xbf16>, tensor<1x16384xbf16>, tensor<1x16384xbf16>, tensor<1x1xf32>) -> (tensor<64x16384xbf16>, tensor<64x1xf32>, tensor<64x1xf32>)
  %dx, %dg, %db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<64x16384xbf16>, tensor<64x16384xbf16>, tensor<1x16384xbf16>, tensor<64x1xf32>, tensor<64x1xf32>) -> (tensor<64x16384xbf16>, tensor<1x16384xf32>, tensor<1x16384xf32>)
  %dxr, %dgr = graph.rmsnorm_backward %dy, %x, scale %g, inv_variance %iv {has_dbias = false} : (tensor<64x16384xbf16>, tensor<64x16384xbf16>, tensor<1x16384xbf16>, tensor<64x1xf32>) -> (tensor<64x16384xbf16>, tensor<1x16384xf32>)
  graph.output %y, %m, %iv, %dx, %dg, %db, %dxr, %dgr : tensor<64x16384xbf16>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x16384xbf16>, tensor<1x16384xf32>, tensor<1x16384xf32>, tensor<64x16384xbf16>, tensor<1x16384xf32>
}
