// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=9 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected. Backward norms whose scale differs per row:
// instance norm (per-channel scale, rows = (n, c)) and adaptive layer norm
// (per-sample scale [N, 1, H]): dX in the row kernel, dY * xhat written
// out and summed by reduce stages into DScale, dY summed into DBias.
// GPU-ARGS: --random-inputs=9 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_norms_backward_perrow(
    %dy: tensor<4x8x6x10xf32> {graph.name = "dY"}, %x: tensor<4x8x6x10xf32> {graph.name = "X"},
    %g: tensor<1x8x1x1xf32> {graph.name = "scale"},
    %m: tensor<4x8x1x1xf32> {graph.name = "mean"}, %iv: tensor<4x8x1x1xf32> {graph.name = "inv_var"},
    %ady: tensor<2x16x64xbf16> {graph.name = "adY"}, %ax: tensor<2x16x64xbf16> {graph.name = "aX"},
    %ag: tensor<2x1x64xf32> {graph.name = "ascale"},
    %am: tensor<2x16x1xf32> {graph.name = "amean"}, %aiv: tensor<2x16x1xf32> {graph.name = "ainv_var"})
    -> (tensor<4x8x6x10xf32> {graph.name = "dX"}, tensor<1x8x1x1xf32> {graph.name = "dscale"},
        tensor<1x8x1x1xf32> {graph.name = "dbias"},
        tensor<2x16x64xbf16> {graph.name = "adX"}, tensor<2x1x64xf32> {graph.name = "adscale"},
        tensor<2x1x64xf32> {graph.name = "adbias"})
    attributes {compute_data_type = f32} {
  %dx, %ds, %db = graph.instancenorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<4x8x6x10xf32>, tensor<4x8x6x10xf32>, tensor<1x8x1x1xf32>, tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>) -> (tensor<4x8x6x10xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>)
  %adx, %ads, %adb = graph.adalayernorm_backward %ady, %ax, scale %ag, mean %am, inv_variance %aiv : (tensor<2x16x64xbf16>, tensor<2x16x64xbf16>, tensor<2x1x64xf32>, tensor<2x16x1xf32>, tensor<2x16x1xf32>) -> (tensor<2x16x64xbf16>, tensor<2x1x64xf32>, tensor<2x1x64xf32>)
  graph.output %dx, %ds, %db, %adx, %ads, %adb : tensor<4x8x6x10xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<2x16x64xbf16>, tensor<2x1x64xf32>, tensor<2x1x64xf32>
}
