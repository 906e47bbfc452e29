// rmsnorm backward, bf16, 8192x16384 (256 MiB per tensor): bench/gpu/tune_rows.sh
graph.graph @rmsnorm_bwd(%dy: tensor<8192x16384xbf16>, %x: tensor<8192x16384xbf16>, %w: tensor<1x16384xbf16>,
                         %iv: tensor<8192x1xf32>)
    -> (tensor<8192x16384xbf16>, tensor<1x16384xf32>) attributes {compute_data_type = f32} {
  %dx, %dw = graph.rmsnorm_backward %dy, %x, scale %w, inv_variance %iv {has_dbias = false} : (tensor<8192x16384xbf16>, tensor<8192x16384xbf16>, tensor<1x16384xbf16>, tensor<8192x1xf32>) -> (tensor<8192x16384xbf16>, tensor<1x16384xf32>)
  graph.output %dx, %dw : tensor<8192x16384xbf16>, tensor<1x16384xf32>
}
