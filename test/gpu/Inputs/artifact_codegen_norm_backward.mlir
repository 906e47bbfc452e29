// Source of ../artifact_codegen_norm_backward.exec.mlir: a layernorm
// backward with a residual add, which cuDNN's rules decline (a norm backward
// runs only alone there), so graph-lower-to-executable embeds codegen_v2's
// kernels.
graph.graph @norm_backward(%x: tensor<64x256xbf16> {graph.name = "x"},
                           %g: tensor<1x256xf32> {graph.name = "scale"},
                           %dy: tensor<64x256xbf16> {graph.name = "dy"},
                           %m: tensor<64x1xf32> {graph.name = "mean"},
                           %iv: tensor<64x1xf32> {graph.name = "inv_var"},
                           %r: tensor<64x256xbf16> {graph.name = "residual"})
    -> (tensor<64x256xbf16> {graph.name = "dx"}, tensor<1x256xf32> {graph.name = "dscale"},
        tensor<1x256xf32> {graph.name = "dbias"})
    attributes {compute_data_type = f32} {
  %dx, %ds, %db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<1x256xf32>, tensor<64x1xf32>, tensor<64x1xf32>) -> (tensor<64x256xf32>, tensor<1x256xf32>, tensor<1x256xf32>)
  %s = graph.pointwise add(%dx, %r) : (tensor<64x256xf32>, tensor<64x256xbf16>) -> tensor<64x256xbf16>
  graph.output %s, %ds, %db : tensor<64x256xbf16>, tensor<1x256xf32>, tensor<1x256xf32>
}
